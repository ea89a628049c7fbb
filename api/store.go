package api

import (
	"context"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Store is what the API reads itself: token checks, the listings and
// poll history, and readiness. Workspaces, sources, webhooks and tokens
// go through the service. *store.Store satisfies it.
type Store interface {
	LookupToken(ctx context.Context, token string) (*model.APIToken, error)

	ListArticles(ctx context.Context, workspaceID int64, f model.ListFilter) ([]model.FeedArticle, error)
	ListContentItems(ctx context.Context, workspaceID int64, f model.ListFilter) ([]model.ContentItemView, error)
	GetContentItem(ctx context.Context, workspaceID, id int64) (*model.ContentItemView, error)
	ListArticlesByRank(ctx context.Context, workspaceID int64, f model.ListFilter, at time.Time) ([]model.FeedArticle, []float64, error)
	ListContentItemsByRank(ctx context.Context, workspaceID int64, f model.ListFilter, at time.Time) ([]model.RankedContentItem, error)
	ListPollRuns(ctx context.Context, sourceID int64, limit int) ([]model.PollRun, error)

	// Ready reports whether the database answers; WriteFailure is the
	// last failed write the daemon retries by itself, or nil.
	Ready(ctx context.Context) error
	WriteFailure() error
}
