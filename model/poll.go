package model

import "time"

// SourceUpdate is the bookkeeping a poll writes on its source.
type SourceUpdate struct {
	Status string
	Error  string
	// PolledAt is the poll's time, stored as last_polled_at: the moment
	// the next poll was decided from, so that next_poll_at −
	// last_polled_at is the interval the scheduler chose. Zero: the
	// save's own time.
	PolledAt   time.Time
	NextPollAt time.Time
	// NextPollReason and NextPollKind say why NextPollAt is when it is.
	NextPollReason, NextPollKind string
	// ScheduleState is the scheduler's estimate to store.
	ScheduleState string
	// HubURL and SelfURL are the WebSub hub and topic the fetch found;
	// nil keeps the stored ones (a 304 has no body to read them from).
	HubURL, SelfURL *string
	// Failed adds one to consecutive_failures; otherwise Reset sets it to 0
	// and neither leaves it alone (deferrals).
	Failed bool
	Reset  bool
	// Deactivate turns the source off (HTTP 410 Gone).
	Deactivate bool
	// Validators to store; nil keeps the stored ones.
	ETag, LastModified *string
	// Unconditional records that this fetch was made without validators.
	Unconditional bool
	// Title fills an empty source title.
	Title string
	// SiteURL replaces the stored site URL when not empty: a feed that
	// stops naming its site keeps the one it named before.
	SiteURL string
}

// StatusPushed is the poll_runs outcome of items a WebSub hub pushed: no
// fetch, the same pipeline and save.
const StatusPushed = "pushed"

// PollOutcome is the result of one poll, as the CLI and the API report it.
type PollOutcome struct {
	SourceID       int64  `json:"source_id"`
	SourceType     string `json:"source_type"`
	Status         string `json:"status"`
	HTTPStatus     int    `json:"http_status"`
	ItemsSeen      int    `json:"items_seen"`
	ItemsNew       int    `json:"items_new"`
	ItemsDuplicate int    `json:"items_duplicate"`
	ItemsPromoted  int    `json:"items_promoted"`
	// ItemsUnchanged are the duplicates left unparsed: entries byte for
	// byte the same as ones an earlier poll of the source settled.
	ItemsUnchanged int `json:"items_unchanged"`
	// Stories is what the save's story placement did.
	Stories StoryCounts `json:"-"`
	// FreqReads is where its reads of document frequencies were
	// answered from (PostgreSQL).
	FreqReads  FreqReads `json:"-"`
	Error      string    `json:"error,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	// NextPollAt and NextPollReason: when the source is polled again, and
	// why then.
	NextPollAt     time.Time `json:"next_poll_at"`
	NextPollReason string    `json:"next_poll_reason"`
}
