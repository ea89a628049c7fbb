package service

import (
	"context"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// WorkspaceStore is the storage of workspaces the service uses.
// *store.Store satisfies it.
type WorkspaceStore interface {
	CreateWorkspace(ctx context.Context, name string, p model.RelevanceProfile) (*model.Workspace, error)
	GetWorkspace(ctx context.Context, id int64) (*model.Workspace, error)
	ListWorkspaces(ctx context.Context) ([]model.Workspace, error)
	UpdateWorkspace(ctx context.Context, id int64, name *string, p *model.RelevanceProfile) (*model.Workspace, error)
	// SetWorkspaceDecayClass sets how fast the workspace's articles age.
	SetWorkspaceDecayClass(ctx context.Context, id int64, class string) error
}

// SourceStore is the storage of sources the service uses. *store.Store
// satisfies it.
type SourceStore interface {
	CreateSource(ctx context.Context, src *model.FeedSource) error
	GetSource(ctx context.Context, workspaceID, id int64) (*model.FeedSource, error)
	ListSources(ctx context.Context, workspaceID int64) ([]model.FeedSource, error)
	UpdateSource(ctx context.Context, workspaceID, id int64, p model.SourcePatch) (*model.FeedSource, error)
	DeleteSource(ctx context.Context, workspaceID, id int64) error
	// SourcesMentioning returns the workspace's sources whose URL contains
	// one of parts, compared case-insensitively.
	SourcesMentioning(ctx context.Context, workspaceID int64, parts ...string) ([]model.FeedSource, error)
	// SubscriptionDueNow makes the WebSub subscription of a source (if it
	// has one) due at once, so that the next sync tells its hub.
	SubscriptionDueNow(ctx context.Context, sourceID int64) error
}

// Store is all the storage the service uses.
type Store interface {
	WorkspaceStore
	SourceStore
}

// DigestStore reads what a digest is built from. *store.Store satisfies
// it.
type DigestStore interface {
	DigestArticles(ctx context.Context, workspaceID int64, since, until time.Time) ([]model.StoredDigestArticle, error)
	DigestSources(ctx context.Context, workspaceID int64, since, until time.Time) ([]model.DigestSource, error)
}

// Validator checks a URL before a source is stored. The daemon puts the
// RSS fetcher and the web poller behind it.
type Validator interface {
	// ValidateFeed fetches and parses a feed, returning its title, its
	// current number of items and the site it names.
	ValidateFeed(ctx context.Context, url string) (FeedCheck, error)
	// ValidatePage fetches a web page (2xx, HTML, non-empty), returning its
	// title and the feeds it advertises.
	ValidatePage(ctx context.Context, url string) (title string, feedLinks []string, err error)
}

// FeedCheck is what validating a feed found.
type FeedCheck struct {
	Title     string
	ItemCount int
	// SiteURL is the site the feed names, an absolute http(s) URL, or "".
	SiteURL string
}

// Poller polls one source at once, whether or not it is due.
// *poller.Poller satisfies it.
type Poller interface {
	// PollNow leases the source (workspaceID 0: in any workspace), polls it
	// and reports the outcome. A source another poll holds is an error
	// wrapping model.ErrLeased; an unknown one wraps model.ErrNotFound.
	PollNow(ctx context.Context, workspaceID, sourceID int64) (model.PollOutcome, error)
}

// Subscriptions hears of sources that were paused, resumed or deleted
// after the service made their push subscriptions due, so that a
// subscriber in this process acts at once (*websub.Subscriber).
type Subscriptions interface {
	SourceChanged(ctx context.Context, sourceID int64)
}
