package store_test

import (
	"context"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
)

// TestSearchMigrationIndexesStoredArticles: articles stored before the
// search migration are found once it has run, on both databases.
func TestSearchMigrationIndexesStoredArticles(t *testing.T) {
	const searchVersion = 6
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := migrateTo(t, d, searchVersion)
			db := s.DB()
			var ws int64
			if err := db.GetContext(ctx, &ws, `INSERT INTO workspaces (name) VALUES ('old') RETURNING id`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO feed_articles (workspace_id, external_url, title, content_markdown)
				VALUES (?, 'https://old.example/1', 'An armadillo story', 'Stored before search existed.')`), ws); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if hits := search(t, s, ws, "armadillo", model.SearchFilter{}); len(hits) != 1 {
				t.Fatalf("after the migration: %d hits for an article stored before it, want 1", len(hits))
			}
		})
	}
}
