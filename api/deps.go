package api

import "context"

// SourceValidator checks a URL before a source is stored. The daemon wires
// the RSS fetcher and the web poller behind it.
type SourceValidator interface {
	// ValidateFeed fetches and parses a feed, returning its title and its
	// current number of items.
	ValidateFeed(ctx context.Context, url string) (title string, itemCount int, err error)
	// ValidatePage fetches a web page (2xx, HTML, non-empty), returning its
	// title and the feeds it advertises.
	ValidatePage(ctx context.Context, url string) (title string, feedLinks []string, err error)
}

// PollNower polls one source at once, whether or not it is due.
type PollNower interface {
	// PollNow polls the source and reports the outcome. A source another
	// poll holds answers an error wrapping store.ErrLeased.
	PollNow(ctx context.Context, workspaceID, sourceID int64) (PollOutcome, error)
}

// PollOutcome is what one immediate poll did, as the poll endpoint answers
// it.
type PollOutcome struct {
	Status         string `json:"status"`
	HTTPStatus     int    `json:"http_status"`
	ItemsSeen      int    `json:"items_seen"`
	ItemsNew       int    `json:"items_new"`
	ItemsDuplicate int    `json:"items_duplicate"`
	ItemsPromoted  int    `json:"items_promoted"`
	Error          string `json:"error"`
	DurationMS     int64  `json:"duration_ms"`
}
