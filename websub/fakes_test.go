package websub

import (
	"context"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

type nopPusher struct{}

func (nopPusher) Push(context.Context, model.FeedSource, *sources.Result) (model.PollOutcome, error) {
	return model.PollOutcome{}, nil
}
