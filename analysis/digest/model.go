package digest

import (
	"time"

	"github.com/feedpoller/feedpoller/analysis/rank"
)

// Input is what a digest is built from.
type Input struct {
	Workspace Workspace
	Window    Window
	// GeneratedAt is when the digest is made.
	GeneratedAt time.Time
	// SourcesAnalyzed is the number of the workspace's sources that were
	// considered (its active sources).
	SourcesAnalyzed int
	// Stories are the workspace's stories with at least one article
	// reported in the window; each holds its articles in the window.
	Stories []Story
	// Sources are the workspace's sources with their poll state, for the
	// gaps section.
	Sources []SourceState
}

// Workspace names the workspace and its default decay class.
type Workspace struct {
	ID         int64
	Name       string
	DecayClass rank.DecayClass
}

// Story is one story and its articles in the window.
type Story struct {
	ID       int64
	Articles []Article
}

// Article is one article of a story.
type Article struct {
	ID      int64
	URL     string
	Title   string
	Summary string
	// SourceID and SourceTitle name the feed source it came from (0 and
	// "" when the source was deleted).
	SourceID    int64
	SourceTitle string
	// Tier is its source's effective reliability tier.
	Tier rank.Tier
	// DecayClass is its source's own class, "" for the workspace's.
	DecayClass rank.DecayClass
	Relevance  float64
	// PublishedAt is the feed's date, StoredAt when feedpoller stored it.
	PublishedAt *time.Time
	StoredAt    time.Time
}

// SourceState is a source's poll state, as the gaps section needs it.
type SourceState struct {
	ID                  int64
	URL                 string
	Title               string
	Active              bool
	LastPolledAt        *time.Time
	LastStatus          string // "ok", "not_modified", "error", "gone", …
	LastError           string
	ConsecutiveFailures int
	// LastArticleAt is when its newest article was stored (nil: never).
	LastArticleAt *time.Time
	// ArticlesInWindow counts its articles stored in the window.
	ArticlesInWindow int
}
