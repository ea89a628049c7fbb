package migrations_test

import (
	"context"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/migrations"
)

// TestStoriesMigrationKeepsStoredArticles: articles stored before
// stories existed each become a story of their own, with their reported
// time (the publication time unless later than when they were stored)
// and their content item's story, on both databases.
func TestStoriesMigrationKeepsStoredArticles(t *testing.T) {
	ctx := context.Background()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			st, err := store.Open(ctx, testdb.URL(t, d))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			db := st.DB()
			ms, err := migrations.List(d)
			if err != nil {
				t.Fatal(err)
			}
			db.MustExec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
			for _, m := range ms {
				if m.Version >= 5 {
					break
				}
				db.MustExec(m.SQL)
				db.MustExec(db.Rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 'before')`), m.Version, m.Name)
			}
			created := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
			db.MustExec(`INSERT INTO workspaces (name) VALUES ('w')`)
			db.MustExec(`INSERT INTO feed_sources (workspace_id, url) VALUES (1, 'https://a.example/feed')`)
			db.MustExec(db.Rebind(`INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, published_at, created_at, content_text_hash)
				VALUES (1, 1, 'https://a.example/1', ?, ?, 'h1'), (1, 1, 'https://a.example/2', ?, ?, 'h2'), (1, 1, 'https://a.example/3', NULL, ?, 'h3')`),
				created.Add(-time.Hour), created, created.Add(time.Hour), created, created)
			db.MustExec(`INSERT INTO content_items (workspace_id, feed_article_id, url, content_text_hash) VALUES (1, 2, 'https://a.example/2', 'h2')`)

			applied, err := st.Migrate(ctx)
			if err != nil || len(applied) == 0 || applied[0] != 5 {
				t.Fatalf("migrate: %v %v", applied, err)
			}
			var rows []struct {
				ID       int64     `db:"id"`
				Story    int64     `db:"story_id"`
				Reported time.Time `db:"reported_at"`
				First    int64     `db:"first_article_id"`
				Count    int       `db:"article_count"`
			}
			if err := db.Select(&rows, `SELECT a.id, a.story_id, a.reported_at, s.first_article_id, s.article_count
				FROM feed_articles a JOIN stories s ON s.id = a.story_id ORDER BY a.id`); err != nil {
				t.Fatal(err)
			}
			want := []time.Time{created.Add(-time.Hour), created, created}
			if len(rows) != 3 {
				t.Fatalf("%d articles with a story, want 3", len(rows))
			}
			for i, r := range rows {
				if r.First != r.ID || r.Count != 1 || !r.Reported.Equal(want[i]) || i > 0 && r.Story == rows[i-1].Story {
					t.Errorf("article %d: %+v, want a story of its own reported at %v", r.ID, r, want[i])
				}
			}
			var item int64
			if err := db.Get(&item, `SELECT story_id FROM content_items`); err != nil || item != rows[1].Story {
				t.Errorf("content item's story %d (%v), want its article's %d", item, err, rows[1].Story)
			}
		})
	}
}
