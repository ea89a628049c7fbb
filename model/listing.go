package model

import "time"

// ContentItemView is a content item with the source it came from.
type ContentItemView struct {
	ContentItem
	Terms        string  `db:"matched_terms" json:"-"`
	SourceID     *int64  `db:"source_id" json:"source_id"`
	SourceURL    *string `db:"source_url" json:"source_url"`
	SourceTitle  *string `db:"source_title" json:"source_title"`
	WordCount    int     `db:"word_count" json:"word_count"`
	QualityScore float64 `db:"quality_score" json:"quality_score"`
}

// RankedContentItem is a content item with its rank.
type RankedContentItem struct {
	ContentItemView
	Rank float64 `db:"rank" json:"rank"`
}

// SearchHit is one article a search found.
type SearchHit struct {
	ID          int64      `db:"id"`
	Title       string     `db:"title"`
	URL         string     `db:"url"`
	SourceID    *int64     `db:"source_id"`
	SourceTitle *string    `db:"source_title"`
	SourceURL   *string    `db:"source_url"`
	PublishedAt *time.Time `db:"published_at"`
	// Relevance is the article's stored relevance score for the
	// workspace; Score how well it matches the query (higher is better;
	// BM25 on SQLite, ts_rank on PostgreSQL: compare it only within one
	// result list).
	Relevance float64 `db:"relevance_score"`
	Score     float64 `db:"score"`
	// Snippet is a passage around the match, each matched word between
	// ** and **.
	Snippet string `db:"snippet"`
	// Summary is the extractive summary stored with the article, else the
	// feed's own.
	Summary string `db:"summary"`
	// ContentItemID is the content item the article was promoted to.
	ContentItemID *int64 `db:"content_item_id"`
}

// ItemRef names a content item without its text.
type ItemRef struct {
	ID          int64  `db:"id"`
	WorkspaceID int64  `db:"workspace_id"`
	Title       string `db:"title"`
	URL         string `db:"url"`
}

// ListFilter narrows article and content-item listings. Results are newest
// first; Cursor is the last id of the previous page (0: first page).
type ListFilter struct {
	SourceID int64
	Since    *time.Time
	Until    *time.Time
	MinScore *float64
	// Query is in the search language of store/textquery.
	Query  string
	Cursor int64
	Limit  int
}

// Page sizes of listings.
const (
	// DefaultPageSize is a page asked for without a size.
	DefaultPageSize = 50
	// MaxPageSize bounds one page.
	MaxPageSize = 200
)

// PageSize is the page the filter asks for: Limit, DefaultPageSize when
// unset, never more than MaxPageSize.
func (f ListFilter) PageSize() int {
	if f.Limit <= 0 {
		return DefaultPageSize
	}
	return min(f.Limit, MaxPageSize)
}

// SearchFilter is one full-text search of a workspace's articles.
type SearchFilter struct {
	// Query is in the search language of store/textquery (words, "a
	// phrase", prefix*, -excluded, a OR b).
	Query        string
	SourceID     int64
	Since, Until *time.Time
	// MinRelevance keeps articles whose relevance score is at least this.
	MinRelevance *float64
	Limit        int
}

// MaxSearchResults bounds one search.
const MaxSearchResults = 50
