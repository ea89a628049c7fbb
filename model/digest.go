package model

import "time"

// DigestArticle is one article of a story, as a digest reads it.
type DigestArticle struct {
	ID      int64
	URL     string
	Title   string
	Summary string
	// SourceID and SourceTitle name the feed source it came from (0 and
	// "" when the source was deleted).
	SourceID    int64
	SourceTitle string
	// Tier is its source's effective reliability tier.
	Tier Tier
	// DecayClass is its source's own class, "" for the workspace's.
	DecayClass DecayClass
	Relevance  float64
	// PublishedAt is the feed's date, StoredAt when feedpoller stored it.
	PublishedAt *time.Time
	StoredAt    time.Time
}

// DigestSource is a source's poll state, as a digest's gaps section
// needs it.
type DigestSource struct {
	ID                  int64
	URL                 string
	Title               string
	Active              bool
	LastPolledAt        *time.Time
	LastStatus          string // "ok", "not_modified", "error", "gone", …
	LastError           string
	ConsecutiveFailures int
	// LastArticleAt is when its newest article was reported (nil: none
	// yet): the clock of stories (publication time, or storage time when
	// undated), so a source whose articles fill the digest is never called
	// silent.
	LastArticleAt *time.Time
	// ArticlesInWindow counts its articles reported in the window.
	ArticlesInWindow int
	// StoredEarlier counts its articles stored in the window but reported
	// before it (a feed's first poll, a backfill); PromotedEarlier those
	// of them that were promoted, and EarliestPromoted the earliest report
	// among these: a window from that day shows them.
	StoredEarlier    int
	PromotedEarlier  int
	EarliestPromoted *time.Time
}

// StoredDigestArticle is one article of a digest's stories, as stored.
type StoredDigestArticle struct {
	DigestArticle
	// StoryID is its story; FallbackSummary the start of the feed's
	// summary when it has no extractive summary (stored before those
	// were written).
	StoryID         int64
	FallbackSummary string
}
