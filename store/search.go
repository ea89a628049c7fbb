package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
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

// Search returns the workspace's articles matching f, best match first.
func (s *Store) Search(ctx context.Context, workspaceID int64, f SearchFilter) ([]model.SearchHit, error) {
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
	var hits []model.SearchHit
	if err := s.db.SelectContext(ctx, &hits, s.q(q), qargs...); err != nil {
		return nil, fmt.Errorf("search articles of workspace %d: %w", workspaceID, err)
	}
	return hits, nil
}

// GetArticle reads one article of a workspace.
func (s *Store) GetArticle(ctx context.Context, workspaceID, id int64) (*model.FeedArticle, error) {
	var r articleRow
	err := s.db.GetContext(ctx, &r, s.q(`SELECT `+articleColumns+`, a.matched_terms FROM feed_articles a
		WHERE a.workspace_id = ? AND a.id = ?`), workspaceID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("article %d: %w", id, model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get article %d: %w", id, err)
	}
	a := r.FeedArticle
	a.MatchedTerms = decodeTerms(r.Terms)
	return &a, nil
}

// ListItemRefs returns a page of content items, newest first, of one
// workspace (workspaceID 0: of every workspace); cursor is the last id of
// the previous page (0: the first).
func (s *Store) ListItemRefs(ctx context.Context, workspaceID, cursor int64, limit int) ([]model.ItemRef, error) {
	var out []model.ItemRef
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT id, workspace_id, title, url FROM content_items
		WHERE (? = 0 OR workspace_id = ?) AND (? = 0 OR id < ?) ORDER BY id DESC LIMIT ?`),
		workspaceID, workspaceID, cursor, cursor, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("list content items: %w", err)
	}
	return out, nil
}
