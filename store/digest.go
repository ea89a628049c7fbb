package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// digestRow is one row of the digest's article query.
type digestRow struct {
	StoryID     int64          `db:"story_id"`
	ID          int64          `db:"id"`
	URL         string         `db:"external_url"`
	Title       string         `db:"title"`
	Summary     string         `db:"extractive_summary"`
	Fallback    string         `db:"fallback_summary"`
	SourceID    sql.NullInt64  `db:"feed_source_id"`
	SourceTitle sql.NullString `db:"source_title"`
	Tier        sql.NullInt64  `db:"reliability_tier"`
	DecayClass  sql.NullString `db:"decay_class"`
	Relevance   float64        `db:"relevance_score"`
	PublishedAt anyTime        `db:"published_at"`
	CreatedAt   anyTime        `db:"created_at"`
}

// fallbackSummaryBytes bounds the feed summary read for an article
// without an extractive summary.
const fallbackSummaryBytes = 2000

// DigestArticles reads the stories of a digest of the workspace over
// [since, until): every story with an article reported in the window that
// was promoted, with all its articles reported in the window (exact copies
// that were not promoted count as sources too), their sources' titles,
// tiers and decay classes, in one statement. It reads the workspace's
// articles reported in the window by the (workspace_id, reported_at)
// index, and their content items by article.
func (s *Store) DigestArticles(ctx context.Context, workspaceID int64, since, until time.Time) ([]model.StoredDigestArticle, error) {
	in := s.asTime("a.reported_at") + " >= " + s.asTime("?") + " AND " + s.asTime("a.reported_at") + " < " + s.asTime("?")
	q := `WITH w AS (SELECT a.id, a.story_id FROM feed_articles a WHERE a.workspace_id = ? AND ` + in + `)
		SELECT a.story_id, a.id, a.external_url, a.title, a.extractive_summary,
			CASE WHEN a.extractive_summary = '' THEN substr(` + articleSummary + `, 1, ` + fmt.Sprint(fallbackSummaryBytes) + `) ELSE '' END AS fallback_summary,
			a.feed_source_id, s.title AS source_title, s.reliability_tier, s.decay_class, a.relevance_score,
			a.published_at, a.created_at
		FROM w JOIN feed_articles a ON a.id = w.id LEFT JOIN feed_sources s ON s.id = a.feed_source_id
		WHERE w.story_id IN (SELECT p.story_id FROM w p JOIN content_items c ON c.feed_article_id = p.id)
		ORDER BY a.story_id, a.id`
	var rows []digestRow
	if err := s.db.SelectContext(ctx, &rows, s.q(q), workspaceID, since.UTC(), until.UTC()); err != nil {
		return nil, fmt.Errorf("read the digest articles of workspace %d: %w", workspaceID, err)
	}
	out := make([]model.StoredDigestArticle, len(rows))
	for i, r := range rows {
		tier := model.TierGeneral
		if r.Tier.Valid && model.Tier(r.Tier.Int64).Valid() {
			tier = model.Tier(r.Tier.Int64)
		}
		out[i] = model.StoredDigestArticle{StoryID: r.StoryID, FallbackSummary: r.Fallback, DigestArticle: model.DigestArticle{
			ID: r.ID, URL: r.URL, Title: r.Title, Summary: r.Summary, SourceID: r.SourceID.Int64,
			SourceTitle: r.SourceTitle.String, Tier: tier, DecayClass: model.DecayClass(r.DecayClass.String),
			Relevance: r.Relevance, PublishedAt: r.PublishedAt.T,
		}}
		if r.CreatedAt.T != nil {
			out[i].StoredAt = *r.CreatedAt.T
		}
	}
	return out, nil
}

// digestSourceRow is one source's poll state for a digest's gaps.
type digestSourceRow struct {
	ID                  int64   `db:"id"`
	URL                 string  `db:"url"`
	Title               string  `db:"title"`
	Active              bool    `db:"is_active"`
	LastPolledAt        anyTime `db:"last_polled_at"`
	LastStatus          string  `db:"last_polled_status"`
	LastError           string  `db:"last_polled_error"`
	ConsecutiveFailures int     `db:"consecutive_failures"`
	LastArticleAt       anyTime `db:"last_article_at"`
	InWindow            int     `db:"in_window"`
	StoredEarlier       int     `db:"stored_earlier"`
	PromotedEarlier     int     `db:"promoted_earlier"`
	EarliestPromoted    anyTime `db:"earliest_promoted"`
}

// DigestSources reads the poll state of the workspace's sources for a
// digest's gaps, on the clock the digest's stories use (reported_at):
// each one's last report, how many of its articles were reported in
// [since, until), and how many it stored in the window but published
// before it (with how many of those were promoted, and the earliest of
// these), so an empty window can say which window shows them.
//
// The counts come from one pass over the sources' articles stored since
// the window began, by the (feed_source_id, created_at) index, grouped by
// source: an article is never reported after it was stored, so one
// reported in the window was stored in it or later. The last report is
// found the same way from the newest stored article's report, which
// bounds it from below.
func (s *Store) DigestSources(ctx context.Context, workspaceID int64, since, until time.Time) ([]model.DigestSource, error) {
	from, to := s.asTime("?"), s.asTime("?")
	created, reported := s.asTime("a.created_at"), s.asTime("a.reported_at")
	earlier := created + ` < ` + to + ` AND ` + reported + ` < ` + from
	promoted := earlier + ` AND EXISTS (SELECT 1 FROM content_items c WHERE c.feed_article_id = a.id)`
	q := `WITH counts AS (
			SELECT a.feed_source_id,
				SUM(CASE WHEN ` + reported + ` >= ` + from + ` AND ` + reported + ` < ` + to + ` THEN 1 ELSE 0 END) AS in_window,
				SUM(CASE WHEN ` + earlier + ` THEN 1 ELSE 0 END) AS stored_earlier,
				SUM(CASE WHEN ` + promoted + ` THEN 1 ELSE 0 END) AS promoted_earlier,
				MIN(CASE WHEN ` + promoted + ` THEN ` + reported + ` END) AS earliest_promoted
			FROM feed_articles a
			WHERE a.feed_source_id IN (SELECT id FROM feed_sources WHERE workspace_id = ?) AND ` + created + ` >= ` + from + `
			GROUP BY a.feed_source_id
		)
		SELECT s.id, s.url, s.title, s.is_active, s.last_polled_at, s.last_polled_status, s.last_polled_error,
			s.consecutive_failures,
			(SELECT a.reported_at FROM feed_articles a WHERE a.feed_source_id = s.id AND a.reported_at IS NOT NULL
				AND ` + created + ` >= (SELECT ` + s.asTime("COALESCE(b.reported_at, b.created_at)") + ` FROM feed_articles b
					WHERE b.feed_source_id = s.id ORDER BY ` + s.asTime("b.created_at") + ` DESC LIMIT 1)
				ORDER BY ` + reported + ` DESC LIMIT 1) AS last_article_at,
			COALESCE(c.in_window, 0) AS in_window, COALESCE(c.stored_earlier, 0) AS stored_earlier,
			COALESCE(c.promoted_earlier, 0) AS promoted_earlier, c.earliest_promoted
		FROM feed_sources s LEFT JOIN counts c ON c.feed_source_id = s.id
		WHERE s.workspace_id = ? ORDER BY s.id`
	since, until = since.UTC(), until.UTC()
	args := []any{since, until, until, since, until, since, until, since, workspaceID, since, workspaceID}
	var rows []digestSourceRow
	if err := s.db.SelectContext(ctx, &rows, s.q(q), args...); err != nil {
		return nil, fmt.Errorf("read the sources of workspace %d for a digest: %w", workspaceID, err)
	}
	out := make([]model.DigestSource, len(rows))
	for i, r := range rows {
		out[i] = model.DigestSource{ID: r.ID, URL: r.URL, Title: r.Title, Active: r.Active, LastPolledAt: r.LastPolledAt.T,
			LastStatus: r.LastStatus, LastError: r.LastError, ConsecutiveFailures: r.ConsecutiveFailures,
			LastArticleAt: r.LastArticleAt.T, ArticlesInWindow: r.InWindow, StoredEarlier: r.StoredEarlier,
			PromotedEarlier: r.PromotedEarlier, EarliestPromoted: r.EarliestPromoted.T}
	}
	return out, nil
}

// anyTime scans a nullable timestamp, as a time, as text or as a julian
// day number: SQLite keeps timestamps as text, hands a subquery's value
// over without the column's declared type, and compares them as
// julianday().
type anyTime struct{ T *time.Time }

// unixEpochJulianDay is 1970-01-01T00:00:00Z as a julian day number.
const unixEpochJulianDay = 2440587.5

// textTimes are the forms timestamps are written in: this driver's, the
// column defaults', datetime('now')'s, RFC 3339.
var textTimes = []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}

// Scan implements sql.Scanner.
func (a *anyTime) Scan(v any) error {
	var s string
	switch x := v.(type) {
	case nil:
		a.T = nil
		return nil
	case time.Time:
		t := x.UTC()
		a.T = &t
		return nil
	case float64:
		// A julian day number: SQLite's MIN or MAX of julianday().
		t := time.UnixMilli(int64(math.Round((x - unixEpochJulianDay) * 86400e3))).UTC()
		a.T = &t
		return nil
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		return fmt.Errorf("scan a time from %T", v)
	}
	for _, layout := range textTimes {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			a.T = &t
			return nil
		}
	}
	return fmt.Errorf("scan a time from %q", s)
}
