package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/lexemes"
	"github.com/feedpoller/feedpoller/store/textquery"
)

// snippetWindow is how many characters of a result's summary and body
// its snippet is looked for in, and snippetWords how many words the
// snippet shows.
const (
	snippetWindow = 16000
	snippetWords  = 32
)

// summaryChars bounds the summary a search result carries.
const summaryChars = 2000

// searchColumns are the columns of a search result, for the feed article
// a, its source s: the text of the title and the windows of the summary
// and body its snippet is built from (one character more than the window,
// which tells that the text goes on).
func searchColumns() string {
	return fmt.Sprintf(`a.id, a.title, a.external_url AS url, a.feed_source_id AS source_id, s.title AS source_title,
		s.url AS source_url, a.published_at, a.relevance_score,
		substr(COALESCE(NULLIF(a.extractive_summary, ''), `+articleSummary+`), 1, %d) AS summary,
		substr(a.summary, 1, %d) AS summary_window, substr(a.content_markdown, 1, %d) AS body_window,
		(SELECT MIN(c.id) FROM content_items c WHERE c.feed_article_id = a.id) AS content_item_id`,
		summaryChars, snippetWindow+1, snippetWindow+1)
}

// searchRow is a result with the text its snippet is built from.
type searchRow struct {
	model.SearchHit
	SummaryWindow string `db:"summary_window"`
	BodyWindow    string `db:"body_window"`
}

// Search returns the workspace's articles matching f, best match first.
// Its work is bounded whatever the query and the articles: the query's
// terms are distinct (textquery), the statement reads the text of the
// rows kept only and a window of it, snippets are built here in one pass
// over those windows, and the search runs in a search slot (at most half
// the connection pool) under the search deadline; it stops when ctx ends.
// A query that cannot be searched is an error wrapping *textquery.Error.
func (s *Store) Search(ctx context.Context, workspaceID int64, f model.SearchFilter) ([]model.SearchHit, error) {
	tq, err := textquery.Parse(f.Query)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", f.Query, err)
	}
	lf := model.ListFilter{SourceID: f.SourceID, Since: f.Since, Until: f.Until, MinScore: f.MinRelevance}
	where, args, err := filterWhere(lf, workspaceID, "a", "a", "created_at", s.d)
	if err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, model.MaxSearchResults)
	filtered := f.SourceID != 0 || f.Since != nil || f.Until != nil || f.MinRelevance != nil
	q, qargs := s.d.search(tq, workspaceID, where, args, filtered, limit)
	var rows []searchRow
	err = s.searching(ctx, func(ctx context.Context) error {
		return s.db.SelectContext(ctx, &rows, s.q(q), qargs...)
	})
	if err != nil {
		return nil, fmt.Errorf("search articles of workspace %d: %w", workspaceID, err)
	}
	h := tq.Highlighter(s.stemmer())
	hits := make([]model.SearchHit, len(rows))
	for i, r := range rows {
		hits[i] = r.SearchHit
		hits[i].Snippet = snippet(h, r)
	}
	s.searchExamined.Add(int64(h.Examined))
	return hits, nil
}

// snippet is the passage of the body around the best match when the
// body's window holds one, else the summary's, else the title.
func snippet(h *textquery.Highlighter, r searchRow) string {
	for _, text := range []string{r.BodyWindow, r.SummaryWindow} {
		w, more := cutWindow(text)
		if s, ok := h.Snippet(w, more, snippetWords); ok {
			return s
		}
	}
	s, _ := h.Snippet(r.Title, false, snippetWords)
	return s
}

// cutWindow cuts text read as a window of snippetWindow characters and
// one more, reporting whether it went on.
func cutWindow(text string) (string, bool) {
	n := 0
	for i := range text {
		if n == snippetWindow {
			return text[:i], true
		}
		n++
	}
	return text, false
}

// stemmer is the stemmer of the dialect's full-text index.
func (s *Store) stemmer() textquery.Stemmer {
	if s.d.name() == Postgres {
		return lexemes.English
	}
	return textquery.Porter
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
	q, args := itemRefsQuery(workspaceID, cursor, limit)
	err := s.db.SelectContext(ctx, &out, s.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("list content items: %w", err)
	}
	return out, nil
}

// itemRefsQuery is ListItemRefs' statement and its arguments. The
// conditions are left out rather than switched off with "? = 0 OR",
// which no index serves: a workspace's items newest first were then read
// through the primary key, every workspace's newer items first.
func itemRefsQuery(workspaceID, cursor int64, limit int) (string, []any) {
	var conds []string
	var args []any
	if workspaceID != 0 {
		conds, args = append(conds, "workspace_id = ?"), append(args, workspaceID)
	}
	if cursor != 0 {
		conds, args = append(conds, "id < ?"), append(args, cursor)
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return `SELECT id, workspace_id, title, url FROM content_items` + where + ` ORDER BY id DESC LIMIT ?`, append(args, max(limit, 1))
}
