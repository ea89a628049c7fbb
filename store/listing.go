package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/textquery"
)

// filterWhere builds the shared WHERE clause of f; alias is the table holding the
// listed rows, art the feed_articles alias (source and the full-text index
// live there). The query, when there is one, is matched through the
// dialect's full-text index; a query that cannot be searched is an error
// wrapping *textquery.Error.
func filterWhere(f model.ListFilter, workspaceID int64, alias, art, dateCol string, d dialect) (string, []any, error) {
	asTime := d.asTime
	date := asTime("COALESCE(" + alias + ".published_at, " + alias + "." + dateCol + ")")
	conds := []string{alias + ".workspace_id = ?"}
	args := []any{workspaceID}
	if f.SourceID != 0 {
		conds = append(conds, art+".feed_source_id = ?")
		args = append(args, f.SourceID)
	}
	if f.Since != nil {
		conds = append(conds, date+" >= "+asTime("?"))
		args = append(args, f.Since.UTC())
	}
	if f.Until != nil {
		conds = append(conds, date+" < "+asTime("?"))
		args = append(args, f.Until.UTC())
	}
	if f.MinScore != nil {
		conds = append(conds, alias+".relevance_score >= ?")
		args = append(args, *f.MinScore)
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		tq, err := textquery.Parse(q)
		if err != nil {
			return "", nil, fmt.Errorf("search %q: %w", q, err)
		}
		cond, qargs := d.textMatch(art, tq)
		conds = append(conds, cond)
		args = append(args, qargs...)
	}
	if f.Cursor > 0 {
		conds = append(conds, alias+".id < ?")
		args = append(args, f.Cursor)
	}
	return strings.Join(conds, " AND "), args, nil
}

const articleColumns = `a.id, a.workspace_id, a.feed_source_id, a.external_url, a.external_id, a.title, a.author,
	a.published_at, ` + articleSummary + ` AS summary, a.content_markdown, a.extraction_method, a.word_count, a.relevance_score,
	a.content_text_hash, a.revision, a.previous_article_id, a.reading_time_seconds, a.input_tokens,
	a.output_tokens, a.quality_score, a.language, a.created_at, a.input_tokens_o200k, a.output_tokens_o200k,
	a.story_id, a.reported_at, a.extractive_summary`

type articleRow struct {
	model.FeedArticle
	Terms string `db:"matched_terms"`
}

// ListArticles returns a page of a workspace's articles, newest first.
func (s *Store) ListArticles(ctx context.Context, workspaceID int64, f model.ListFilter) ([]model.FeedArticle, error) {
	where, args, err := filterWhere(f, workspaceID, "a", "a", "created_at", s.d)
	if err != nil {
		return nil, err
	}
	var rows []articleRow
	q := `SELECT ` + articleColumns + `, a.matched_terms FROM feed_articles a WHERE ` + where +
		fmt.Sprintf(` ORDER BY a.id DESC LIMIT %d`, f.PageSize())
	if err := s.listing(ctx, f, func(ctx context.Context) error {
		return s.db.SelectContext(ctx, &rows, s.q(q), args...)
	}); err != nil {
		return nil, fmt.Errorf("list articles of workspace %d: %w", workspaceID, err)
	}
	out := make([]model.FeedArticle, len(rows))
	for i, r := range rows {
		out[i] = r.FeedArticle
		out[i].MatchedTerms = decodeTerms(r.Terms)
	}
	return out, nil
}

const itemSelect = `SELECT c.id, c.workspace_id, c.feed_article_id, c.url, c.title, c.content_markdown,
	c.content_text_hash, c.relevance_score, c.matched_terms, c.published_at, c.promoted_at, c.story_id,
	s.id AS source_id, s.url AS source_url, s.title AS source_title, a.word_count, a.quality_score
	FROM content_items c
	JOIN feed_articles a ON a.id = c.feed_article_id
	LEFT JOIN feed_sources s ON s.id = a.feed_source_id`

// ListContentItems returns a page of a workspace's content items, newest
// first.
func (s *Store) ListContentItems(ctx context.Context, workspaceID int64, f model.ListFilter) ([]model.ContentItemView, error) {
	where, args, err := filterWhere(f, workspaceID, "c", "a", "promoted_at", s.d)
	if err != nil {
		return nil, err
	}
	var rows []model.ContentItemView
	q := itemSelect + ` WHERE ` + where + fmt.Sprintf(` ORDER BY c.id DESC LIMIT %d`, f.PageSize())
	if err := s.listing(ctx, f, func(ctx context.Context) error {
		return s.db.SelectContext(ctx, &rows, s.q(q), args...)
	}); err != nil {
		return nil, fmt.Errorf("list content items of workspace %d: %w", workspaceID, err)
	}
	for i := range rows {
		rows[i].MatchedTerms = decodeTerms(rows[i].Terms)
	}
	return rows, nil
}

// GetContentItem reads one content item of a workspace.
func (s *Store) GetContentItem(ctx context.Context, workspaceID, id int64) (*model.ContentItemView, error) {
	var v model.ContentItemView
	err := s.db.GetContext(ctx, &v, s.q(itemSelect+` WHERE c.workspace_id = ? AND c.id = ?`), workspaceID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("content item %d: %w", id, model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get content item %d: %w", id, err)
	}
	v.MatchedTerms = decodeTerms(v.Terms)
	return &v, nil
}

// ListPollRuns returns a source's latest poll runs, newest first.
func (s *Store) ListPollRuns(ctx context.Context, sourceID int64, limit int) ([]model.PollRun, error) {
	var out []model.PollRun
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT id, `+runColumns+` FROM poll_runs WHERE feed_source_id = ?
		ORDER BY id DESC LIMIT ?`), sourceID, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("list poll runs of source %d: %w", sourceID, err)
	}
	return out, nil
}

func decodeTerms(s string) []string {
	var out []string
	if s != "" {
		_ = json.Unmarshal([]byte(s), &out) // stored by us; a bad value reads as none
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// LatestPollRuns returns the last poll run of each of a workspace's
// sources that was ever polled, by source id: one statement for a list
// of sources, however many there are.
func (s *Store) LatestPollRuns(ctx context.Context, workspaceID int64) (map[int64]model.PollRun, error) {
	var runs []model.PollRun
	err := s.db.SelectContext(ctx, &runs, s.q(`SELECT id, `+runColumns+` FROM poll_runs WHERE id IN (
		SELECT MAX(r.id) FROM poll_runs r JOIN feed_sources f ON f.id = r.feed_source_id
		WHERE f.workspace_id = ? GROUP BY r.feed_source_id)`), workspaceID)
	if err != nil {
		return nil, fmt.Errorf("latest poll runs of workspace %d: %w", workspaceID, err)
	}
	out := make(map[int64]model.PollRun, len(runs))
	for _, r := range runs {
		out[r.FeedSourceID] = r
	}
	return out, nil
}
