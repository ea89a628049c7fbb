package main

import (
	"context"

	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/web"
)

// validator puts the feed and page validators behind the source service's
// interface.
type validator struct {
	rss *rss.Fetcher
	web *web.Fetcher
}

func (v validator) ValidateFeed(ctx context.Context, url string) (service.FeedCheck, error) {
	got, err := v.rss.Validate(ctx, url)
	return service.FeedCheck{Title: got.Title, ItemCount: got.ItemCount, SiteURL: got.SiteURL}, err
}

func (v validator) ValidatePage(ctx context.Context, url string) (string, []string, error) {
	res, err := v.web.Validate(ctx, url)
	if err != nil {
		return "", nil, err
	}
	return res.Title, res.FeedLinks, nil
}
