package model

// KnownArticle is the part of a stored article that dedup needs.
type KnownArticle struct {
	ID              int64   `db:"id"`
	ExternalURL     string  `db:"external_url"`
	ExternalID      *string `db:"external_id"`
	FeedSourceID    *int64  `db:"feed_source_id"`
	Revision        int     `db:"revision"`
	ContentTextHash string  `db:"content_text_hash"`
}

// Known is what a workspace already holds for the items of one poll.
type Known struct {
	// ByURL maps a normalised URL to its latest revision.
	ByURL map[string]KnownArticle
	// GUIDs of the source that are already stored, keyed as the poll's
	// items carry them (the store compares them as it stores them).
	GUIDs map[string]bool
}
