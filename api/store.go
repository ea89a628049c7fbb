package api

import (
	"context"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// Store is what the API reads and writes itself: token checks and
// tokens, the listings and poll history, and readiness. Workspaces and
// sources go through the source service. *store.Store satisfies it.
type Store interface {
	LookupToken(ctx context.Context, token string) (*model.APIToken, error)
	CreateToken(ctx context.Context, workspaceID *int64, name, token string) (*model.APIToken, error)
	CreateReadOnlyToken(ctx context.Context, workspaceID *int64, name, token string) (*model.APIToken, error)
	ListTokens(ctx context.Context, workspaceID int64) ([]model.APIToken, error)
	RevokeToken(ctx context.Context, workspaceID, id int64) error
	RevokeAdminToken(ctx context.Context, id int64, keepWritable bool) error

	ListArticles(ctx context.Context, workspaceID int64, f store.ListFilter) ([]model.FeedArticle, error)
	ListContentItems(ctx context.Context, workspaceID int64, f store.ListFilter) ([]model.ContentItemView, error)
	GetContentItem(ctx context.Context, workspaceID, id int64) (*model.ContentItemView, error)
	ListArticlesByRank(ctx context.Context, workspaceID int64, f store.ListFilter, at time.Time) ([]model.FeedArticle, []float64, error)
	ListContentItemsByRank(ctx context.Context, workspaceID int64, f store.ListFilter, at time.Time) ([]model.RankedContentItem, error)
	ListPollRuns(ctx context.Context, sourceID int64, limit int) ([]model.PollRun, error)

	// Ready reports whether the database answers; WriteFailure is the
	// last failed write the daemon retries by itself, or nil.
	Ready(ctx context.Context) error
	WriteFailure() error
}
