package main

import (
	"context"

	"github.com/feedpoller/feedpoller/api"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/web"
)

// validator puts the feed and page validators behind the API's interface.
type validator struct {
	rss *rss.Fetcher
	web *web.Fetcher
}

func (v validator) ValidateFeed(ctx context.Context, url string) (string, int, error) {
	return v.rss.Validate(ctx, url)
}

func (v validator) ValidatePage(ctx context.Context, url string) (string, []string, error) {
	res, err := v.web.Validate(ctx, url)
	if err != nil {
		return "", nil, err
	}
	return res.Title, res.FeedLinks, nil
}

// pollNower puts the poller behind the API's interface.
type pollNower struct{ p *poller.Poller }

func (n pollNower) PollNow(ctx context.Context, workspaceID, sourceID int64) (api.PollOutcome, error) {
	o, err := n.p.PollNow(ctx, workspaceID, sourceID)
	if err != nil {
		return api.PollOutcome{}, err
	}
	return api.PollOutcome{Status: o.Status, HTTPStatus: o.HTTPStatus, ItemsSeen: o.ItemsSeen, ItemsNew: o.ItemsNew,
		ItemsDuplicate: o.ItemsDuplicate, ItemsPromoted: o.ItemsPromoted, Error: o.Error, DurationMS: o.DurationMS}, nil
}
