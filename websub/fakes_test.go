package websub

import (
	"context"

	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

type nopPusher struct{}

func (nopPusher) Push(context.Context, store.FeedSource, []sources.FeedItem) (poller.Outcome, error) {
	return poller.Outcome{}, nil
}
