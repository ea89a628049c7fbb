package model

import (
	"time"
)

// Source types accepted by feed_sources.source_type.
const (
	SourceRSS = "rss"
	SourceWeb = "web"
	SourceAPI = "api"
)

// Poll outcomes recorded in feed_sources.last_polled_status and
// poll_runs.outcome.
const (
	StatusOK           = "ok"
	StatusNotModified  = "not_modified"
	StatusError        = "error"
	StatusDeferred     = "deferred"      // rate limited or circuit open: not a failure
	StatusGone         = "gone"          // HTTP 410: source deactivated
	StatusNotSupported = "not_supported" // source type not polled
	StatusRefused      = "refused"       // the address policy refused the host: configuration, not a failure
)

// Schedule modes accepted by feed_sources.schedule_mode.
const (
	ScheduleAdaptive = "adaptive"
	ScheduleFixed    = "fixed"
)

// MaxConsecutiveFailures is where a source stops being due.
const MaxConsecutiveFailures = 10

// DefaultThreshold is the relevance threshold of a workspace created
// without one, through the API or the CLI alike: an article must match
// some of the keywords to be promoted, not merely exist.
const DefaultThreshold = 0.2

// Workspace is a tenant.
type Workspace struct {
	ID        int64            `db:"id" json:"id"`
	Name      string           `db:"name" json:"name"`
	Profile   RelevanceProfile `db:"-" json:"relevance_profile"`
	CreatedAt time.Time        `db:"created_at" json:"created_at"`
	// DecayClass is how fast its articles age for rank: fast, moderate
	// or stable (see rank.DecayClass).
	DecayClass string `db:"decay_class" json:"decay_class"`
}

// FeedSource is one URL to poll.
type FeedSource struct {
	ID                     int64      `db:"id" json:"id"`
	WorkspaceID            int64      `db:"workspace_id" json:"workspace_id"`
	URL                    string     `db:"url" json:"url"`
	SourceType             string     `db:"source_type" json:"source_type"`
	Title                  string     `db:"title" json:"title"`
	IsActive               bool       `db:"is_active" json:"is_active"`
	PollingIntervalMinutes int        `db:"polling_interval_minutes" json:"polling_interval_minutes"`
	TrackChanges           bool       `db:"track_changes" json:"track_changes"`
	ETag                   string     `db:"etag" json:"-"`
	LastModified           string     `db:"last_modified" json:"-"`
	LastPolledAt           *time.Time `db:"last_polled_at" json:"last_polled_at"`
	LastPolledStatus       string     `db:"last_polled_status" json:"last_polled_status"`
	LastPolledError        string     `db:"last_polled_error" json:"last_polled_error"`
	ConsecutiveFailures    int        `db:"consecutive_failures" json:"consecutive_failures"`
	NextPollAt             time.Time  `db:"next_poll_at" json:"next_poll_at"`
	// ScheduleMode is ScheduleAdaptive or ScheduleFixed.
	ScheduleMode string `db:"schedule_mode" json:"schedule"`
	// NextPollReason says why NextPollAt is when it is ("ttl 120m",
	// "backoff: 3 failures → 4h"); NextPollKind is the rule that placed it,
	// one of a small closed set (poller/schedule.Kinds), "" before the
	// first poll.
	NextPollReason string `db:"next_poll_reason" json:"next_poll_reason"`
	NextPollKind   string `db:"next_poll_kind" json:"next_poll_kind"`
	// ScheduleState is the adaptive scheduler's estimate, opaque text ("":
	// never polled).
	ScheduleState string `db:"schedule_state" json:"-"`
	// HubURL and SelfURL are the WebSub hub and topic the feed advertised
	// at its last fetch ("" when none).
	HubURL  string `db:"hub_url" json:"-"`
	SelfURL string `db:"self_url" json:"-"`
	// WebSubSubscribedUntil is when the source's verified WebSub
	// subscription ends; while it lies ahead, pushes bring the items and
	// polls fall back to a safety interval.
	WebSubSubscribedUntil *time.Time `db:"websub_subscribed_until" json:"-"`
	// WebSub is the source's WebSub subscription, nil when it has none
	// (filled by GetSource and ListSources).
	WebSub *WebSubStatus `db:"-" json:"websub"`
	// LastUnconditionalAt is when the source was last fetched without
	// validators (once a day, so stale validators cannot hide new items).
	LastUnconditionalAt *time.Time `db:"last_unconditional_at" json:"-"`
	// DueAt is when the poll now leased was due (for scheduler lag).
	DueAt      *time.Time `db:"due_at" json:"-"`
	LeaseUntil *time.Time `db:"lease_until" json:"-"`
	LeaseOwner string     `db:"lease_owner" json:"-"`
	CreatedAt  time.Time  `db:"created_at" json:"created_at"`
	UpdatedAt  time.Time  `db:"updated_at" json:"updated_at"`
	// Category is the folder the source was imported from (OPML), "/"
	// between nested folders; empty when none.
	Category string `db:"category" json:"category"`
	// SiteURL is the site a feed belongs to (its home page), as the feed
	// names it or an imported outline's htmlUrl gave it; empty when not
	// known.
	SiteURL string `db:"site_url" json:"site_url"`
	SourceRank
}

// SourceRank is what a source contributes to rank: its reliability tier
// (1 official … 5 general web), whether an admin set it (else the domain
// rules decide it), and its own decay class ("": the workspace's).
type SourceRank struct {
	ReliabilityTier       int     `db:"reliability_tier" json:"reliability_tier"`
	ReliabilityTierManual bool    `db:"reliability_tier_manual" json:"reliability_tier_manual"`
	DecayClass            *string `db:"decay_class" json:"decay_class"`
}

// ExtractionSummary is the extraction method of an article whose body is
// its feed summary, nothing better having been found: the text is then
// converted once and stored once, as the body, and read back as the
// summary too.
const ExtractionSummary = "summary_degraded"

// FeedArticle is a stored, URL-deduplicated item.
type FeedArticle struct {
	ID               int64      `db:"id" json:"id"`
	WorkspaceID      int64      `db:"workspace_id" json:"workspace_id"`
	FeedSourceID     *int64     `db:"feed_source_id" json:"feed_source_id"`
	ExternalURL      string     `db:"external_url" json:"url"`
	ExternalID       *string    `db:"external_id" json:"guid"`
	Title            string     `db:"title" json:"title"`
	Author           string     `db:"author" json:"author"`
	PublishedAt      *time.Time `db:"published_at" json:"published_at"`
	Summary          string     `db:"summary" json:"summary"`
	ContentMarkdown  string     `db:"content_markdown" json:"content_markdown"`
	ExtractionMethod string     `db:"extraction_method" json:"extraction_method"`
	WordCount        int        `db:"word_count" json:"word_count"`
	RelevanceScore   float64    `db:"relevance_score" json:"relevance_score"`
	MatchedTerms     []string   `db:"-" json:"matched_terms"`
	ContentTextHash  string     `db:"content_text_hash" json:"content_text_hash"`
	// Revision counts page revisions of a track_changes web source (1 for
	// the first); PreviousArticleID links a revision to the one before.
	Revision          int    `db:"revision" json:"revision"`
	PreviousArticleID *int64 `db:"previous_article_id" json:"previous_article_id"`
	// Statistics of the stored Markdown (see sources/extract).
	ReadingTimeSeconds int       `db:"reading_time_seconds" json:"reading_time_seconds"`
	InputTokens        int       `db:"input_tokens" json:"input_tokens"`
	OutputTokens       int       `db:"output_tokens" json:"output_tokens"`
	InputTokensO200k   int       `db:"input_tokens_o200k" json:"input_tokens_o200k"` // cl100k_base above, o200k_base here
	OutputTokensO200k  int       `db:"output_tokens_o200k" json:"output_tokens_o200k"`
	QualityScore       float64   `db:"quality_score" json:"quality_score"`
	Language           string    `db:"language" json:"language"`
	CreatedAt          time.Time `db:"created_at" json:"created_at"`
	ArticleStory
}

// ArticleStory is an article's place in a story: the story, when it
// counts as reported (see ReportedAt), its extractive summary, and why it
// joined its story.
type ArticleStory struct {
	StoryID           *int64     `db:"story_id" json:"story_id"`
	ReportedAt        *time.Time `db:"reported_at" json:"reported_at"`
	ExtractiveSummary string     `db:"extractive_summary" json:"extractive_summary"`
	// StoryReason is the stories side's account of the placement ("" when
	// the article started its story).
	StoryReason string `db:"story_reason" json:"-"`
	// StoryProfile is the article's profile in stored form, written with
	// it for re-examination (never read into this struct).
	StoryProfile []byte `db:"-" json:"-"`
}

// ContentItem is an article that passed relevance and content-hash dedup.
type ContentItem struct {
	ID              int64      `db:"id" json:"id"`
	WorkspaceID     int64      `db:"workspace_id" json:"workspace_id"`
	FeedArticleID   int64      `db:"feed_article_id" json:"feed_article_id"`
	URL             string     `db:"url" json:"url"`
	Title           string     `db:"title" json:"title"`
	ContentMarkdown string     `db:"content_markdown" json:"content_markdown"`
	ContentTextHash string     `db:"content_text_hash" json:"content_text_hash"`
	RelevanceScore  float64    `db:"relevance_score" json:"relevance_score"`
	MatchedTerms    []string   `db:"-" json:"matched_terms"`
	PublishedAt     *time.Time `db:"published_at" json:"published_at"`
	PromotedAt      time.Time  `db:"promoted_at" json:"promoted_at"`
	StoryID         *int64     `db:"story_id" json:"story_id"`
}

// PollRun is the audit row of one poll.
type PollRun struct {
	ID             int64      `db:"id" json:"id"`
	FeedSourceID   int64      `db:"feed_source_id" json:"feed_source_id"`
	StartedAt      time.Time  `db:"started_at" json:"started_at"`
	FinishedAt     *time.Time `db:"finished_at" json:"finished_at"`
	Outcome        string     `db:"outcome" json:"outcome"`
	HTTPStatus     int        `db:"http_status" json:"http_status"`
	ItemsSeen      int        `db:"items_seen" json:"items_seen"`
	ItemsNew       int        `db:"items_new" json:"items_new"`
	ItemsDuplicate int        `db:"items_duplicate" json:"items_duplicate"`
	ItemsPromoted  int        `db:"items_promoted" json:"items_promoted"`
	DurationMS     int64      `db:"duration_ms" json:"duration_ms"`
	Error          string     `db:"error" json:"error"`
}
