package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/store/textquery"
)

// SearchFilter is one full-text search of a workspace's articles.
type SearchFilter struct {
	Query        textquery.Query
	SourceID     int64
	Since, Until *time.Time
	// MinRelevance keeps articles whose relevance score is at least this.
	MinRelevance *float64
	Limit        int
}

// MaxSearchResults bounds one search.
const MaxSearchResults = 50

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

// Search returns the workspace's articles matching f, best match first.
func (s *Store) Search(ctx context.Context, workspaceID int64, f SearchFilter) ([]SearchHit, error) {
	lf := ListFilter{SourceID: f.SourceID, Since: f.Since, Until: f.Until, MinScore: f.MinRelevance}
	where, args, err := lf.where(workspaceID, "a", "a", "created_at", s.d)
	if err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, MaxSearchResults)
	filtered := f.SourceID != 0 || f.Since != nil || f.Until != nil || f.MinRelevance != nil
	q, qargs := s.d.search(f.Query, workspaceID, where, args, filtered, limit)
	var hits []SearchHit
	if err := s.db.SelectContext(ctx, &hits, s.q(q), qargs...); err != nil {
		return nil, fmt.Errorf("search articles of workspace %d: %w", workspaceID, err)
	}
	return hits, nil
}

// GetArticle reads one article of a workspace.
func (s *Store) GetArticle(ctx context.Context, workspaceID, id int64) (*FeedArticle, error) {
	var r articleRow
	err := s.db.GetContext(ctx, &r, s.q(`SELECT `+articleColumns+`, a.matched_terms FROM feed_articles a
		WHERE a.workspace_id = ? AND a.id = ?`), workspaceID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("article %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get article %d: %w", id, err)
	}
	a := r.FeedArticle
	a.MatchedTerms = decodeTerms(r.Terms)
	return &a, nil
}

// ItemRef names a content item without its text.
type ItemRef struct {
	ID          int64  `db:"id"`
	WorkspaceID int64  `db:"workspace_id"`
	Title       string `db:"title"`
	URL         string `db:"url"`
}

// ListItemRefs returns a page of content items, newest first, of one
// workspace (workspaceID 0: of every workspace); cursor is the last id of
// the previous page (0: the first).
func (s *Store) ListItemRefs(ctx context.Context, workspaceID, cursor int64, limit int) ([]ItemRef, error) {
	var out []ItemRef
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT id, workspace_id, title, url FROM content_items
		WHERE (? = 0 OR workspace_id = ?) AND (? = 0 OR id < ?) ORDER BY id DESC LIMIT ?`),
		workspaceID, workspaceID, cursor, cursor, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("list content items: %w", err)
	}
	return out, nil
}
