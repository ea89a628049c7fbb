package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestSummaryThatIsTheBodyStoredOnce: an article whose body is its feed
// summary (extraction method summary_degraded, the two texts equal) is
// stored with the text once (an empty summary column), read back with its
// summary everywhere an article is read (GetArticle, listings, search,
// the digest's fallback), found by search once, and ranked above an
// article that has the word in its body only, as a summary word is; an
// article whose summary differs from its body keeps both. On both
// databases.
func TestSummaryThatIsTheBodyStoredOnce(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://once.example/feed")
		const teaser = "A wombat crossed the bridge at dawn, the council said."
		now := time.Now().UTC()
		arts := []model.NewArticle{
			{Promote: true, Article: model.FeedArticle{ExternalURL: "https://once.example/teaser", Title: "Teaser only",
				Summary: teaser, ContentMarkdown: teaser, ExtractionMethod: model.ExtractionSummary, ContentTextHash: "h1",
				PublishedAt: &now}},
			{Article: model.FeedArticle{ExternalURL: "https://once.example/full", Title: "Full text",
				ContentMarkdown: "A wombat was seen.", ExtractionMethod: "feed_content", ContentTextHash: "h2", PublishedAt: &now}},
			{Article: model.FeedArticle{ExternalURL: "https://once.example/both", Title: "Both",
				Summary: "What happened overnight.", ContentMarkdown: "Nothing happened overnight.",
				ExtractionMethod: "feed_content", ContentTextHash: "h3", PublishedAt: &now}},
		}
		ids := saveThroughPoll(t, s, ws, srcs[0], arts)
		var stored []struct {
			URL     string `db:"external_url"`
			Summary string `db:"summary"`
		}
		if err := s.DB().SelectContext(ctx, &stored, `SELECT external_url, summary FROM feed_articles ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		if len(stored) != 3 || stored[0].Summary != "" || stored[2].Summary != "What happened overnight." {
			t.Fatalf("summary columns %+v: want the teaser's empty (its body holds it) and the other's kept", stored)
		}
		got, err := s.GetArticle(ctx, ws.ID, ids["https://once.example/teaser"])
		if err != nil {
			t.Fatal(err)
		}
		if got.Summary != teaser || got.ContentMarkdown != teaser {
			t.Errorf("GetArticle: summary %q, body %q; want both the teaser", got.Summary, got.ContentMarkdown)
		}
		list, err := s.ListArticles(ctx, ws.ID, model.ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range list {
			if a.ExternalURL == "https://once.example/teaser" && a.Summary != teaser {
				t.Errorf("ListArticles: summary %q, want the teaser", a.Summary)
			}
		}
		hits := search(t, s, ws.ID, "wombat", model.SearchFilter{})
		if len(hits) != 2 || hits[0].ID != ids["https://once.example/teaser"] {
			t.Fatalf("search: %+v; want both articles, the teaser (a summary word) first", hits)
		}
		if hits := search(t, s, ws.ID, "council", model.SearchFilter{}); len(hits) != 1 || hits[0].Summary != teaser {
			t.Errorf("search for a teaser word: %+v; want the teaser with its summary", hits)
		}
		digest, err := s.DigestArticles(ctx, ws.ID, now.Add(-time.Hour), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range digest {
			if a.ID == ids["https://once.example/teaser"] && a.Summary == "" && a.FallbackSummary != teaser {
				t.Errorf("digest fallback summary %q, want the teaser", a.FallbackSummary)
			}
		}
	})
}

// TestTextOnceMigrationKeepsOlderRows: an article stored before migration
// 0015 with its text twice (summary and body, summary_degraded) is still
// found and read back the same once it has run, and deleting it takes its
// entries out of the full-text index (SQLite's FTS5 integrity check, which
// fails when the delete trigger hands the index other text than it was
// given), on both databases.
func TestTextOnceMigrationKeepsOlderRows(t *testing.T) {
	const textOnceVersion = 15
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := migrateTo(t, d, textOnceVersion)
			db := s.DB()
			var ws int64
			if err := db.GetContext(ctx, &ws, `INSERT INTO workspaces (name) VALUES ('old') RETURNING id`); err != nil {
				t.Fatal(err)
			}
			const teaser = "A pangolin was seen near the ferry."
			if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO feed_articles (workspace_id, external_url, title, summary, content_markdown, extraction_method)
				VALUES (?, 'https://old.example/1', 'Old teaser', ?, ?, ?)`), ws, teaser, teaser, model.ExtractionSummary); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			hits := search(t, s, ws, "pangolin", model.SearchFilter{})
			if len(hits) != 1 || hits[0].Summary != teaser {
				t.Fatalf("after the migration: %+v, want the old article with its summary", hits)
			}
			if _, err := db.ExecContext(ctx, `DELETE FROM feed_articles`); err != nil {
				t.Fatal(err)
			}
			if s.Dialect() == store.SQLite {
				if _, err := db.ExecContext(ctx, `INSERT INTO feed_articles_fts (feed_articles_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
					t.Fatalf("full-text index after deleting the older row: %v", err)
				}
			}
			if hits := search(t, s, ws, "pangolin", model.SearchFilter{}); len(hits) != 0 {
				t.Fatalf("after deleting it: %+v, want nothing", hits)
			}
		})
	}
}
