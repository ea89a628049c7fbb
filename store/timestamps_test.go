package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// Rows written by another SQL client behave like the daemon's own: a source
// inserted with plain SQL, relying on the column defaults or writing
// timestamps as datetime('now') does, is claimed when due and not before,
// and articles it wrote are found by date.
func TestRowsFromOtherClientsAreDue(t *testing.T) {
	testdb.EachWorkspace(t, "other-client", func(t *testing.T, s *store.Store, ws *model.Workspace) {
		ctx := context.Background()
		// The timestamps another client writes: SQLite's column default
		// (…T…Z), datetime('now') (no T, no zone), ISO with T but no
		// fraction; PostgreSQL's now() and text literals.
		past, future := "'2001-02-03 04:05:06'", "'2999-01-01T00:00:00Z'"
		nowText := "datetime('now', '-1 second')"
		if s.Dialect() == store.Postgres {
			nowText = "now() - interval '1 second'"
		}
		exec := func(q string) {
			t.Helper()
			if _, err := s.DB().Exec(s.DB().Rebind(q), ws.ID); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(`INSERT INTO feed_sources (workspace_id, url) VALUES (?, 'https://example.com/defaults')`)
		exec(`INSERT INTO feed_sources (workspace_id, url, next_poll_at) VALUES (?, 'https://example.com/datetime-now', ` + nowText + `)`)
		exec(`INSERT INTO feed_sources (workspace_id, url, next_poll_at) VALUES (?, 'https://example.com/past', ` + past + `)`)
		exec(`INSERT INTO feed_sources (workspace_id, url, next_poll_at) VALUES (?, 'https://example.com/future', ` + future + `)`)

		if n, err := s.CountDue(ctx); err != nil || n != 3 {
			t.Fatalf("due count %d (%v), want 3", n, err)
		}
		claimed, err := s.ClaimDue(ctx, "test", 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, src := range claimed {
			got = append(got, strings.TrimPrefix(src.URL, "https://example.com/"))
		}
		slices.Sort(got)
		if strings.Join(got, ",") != "datetime-now,defaults,past" {
			t.Fatalf("claimed %v, want the past one and the two written just now, never the future one", got)
		}
		if again, _ := s.ClaimDue(ctx, "test", 10, time.Minute); len(again) != 0 {
			t.Fatalf("claimed again while leased: %d sources", len(again))
		}

		// An article another client inserted, with the default created_at,
		// is listed by a date window around now.
		if _, err := s.DB().Exec(s.DB().Rebind(`INSERT INTO feed_articles (workspace_id, external_url, title) VALUES (?, 'https://example.com/a', 'by hand')`), ws.ID); err != nil {
			t.Fatal(err)
		}
		since, until := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		arts, err := s.ListArticles(ctx, ws.ID, model.ListFilter{Since: &since, Until: &until})
		if err != nil || len(arts) != 1 {
			t.Fatalf("articles between an hour ago and in an hour: %d (%v), want the hand-inserted one", len(arts), err)
		}
	})
}

// Claiming finds due sources through the partial index feed_sources_due on
// SQLite too, without scanning the table (on PostgreSQL the bench package
// checks EXPLAIN ANALYZE at 10 000 sources).
func TestSQLiteClaimReadsDueIndex(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.SQLite)
	ws, err := s.CreateWorkspace(ctx, "plan", model.RelevanceProfile{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
		INSERT INTO feed_sources (workspace_id, url, is_active, consecutive_failures, next_poll_at)
		SELECT ?, 'https://example.com/' || i, i % 50 <> 0, CASE WHEN i % 70 = 0 THEN 10 ELSE 0 END,
			strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-15 minutes', '+' || (i % 1800) || ' seconds') FROM n`, ws.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
	plan, err := s.ExplainClaimDue(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "USING INDEX feed_sources_due") || strings.Contains(plan, "SCAN feed_sources") ||
		strings.Contains(plan, "TEMP B-TREE") {
		t.Fatalf("claiming does not go through feed_sources_due alone:\n%s", plan)
	}
}
