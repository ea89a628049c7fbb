package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// lexemeBody holds the kinds of words whose search a tokenizer can get
// wrong.
const lexemeBody = `The quokka was migrated to a new enclosure in Zürich. Read the release notes
at https://zoo.example.org/docs/move-guide.html before the kangaroos arrive; the keeper calls
it a state-of-the-art enclosure built with node.js sensors.`

// TestSearchFindsWhatUsersType: the words of an article are found by the
// query a person would type for them, on both databases alike — a word, a
// phrase, a prefix, another form of a word, a word with an accent typed
// with or without it, a hyphenated word, a URL, a token with a dot — and
// what is not in it, or not in that order, is not.
func TestSearchFindsWhatUsersType(t *testing.T) {
	found := []string{`quokka`, `"release notes"`, `kangar*`, `kangaroo`, `migrating`, `Zürich`, `zurich`,
		`ZURICH`, `state-of-the-art`, `"state of the art"`, `https://zoo.example.org/docs/move-guide.html`,
		`zoo.example.org`, `move-guide`, `node.js`, `sensor`, `wombat OR quokka`, `quokka -wombat`,
		`"the quokka was migrated"`, `enclos*`, `migrated*`, `"release note*"`}
	missing := []string{`wombat`, `"notes release"`, `quokka -zurich`, `"quokka enclosure"`, `state-of-the-zoo`,
		`zoo.example.com`, `kangaroo -"release notes"`}
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://words.example/feed")
		saveThroughPoll(t, s, ws, srcs[0], []model.NewArticle{{Article: model.FeedArticle{
			ExternalURL: "https://words.example/1", Title: "Zoo news", ContentMarkdown: lexemeBody, ContentTextHash: "w1"}}})
		for _, q := range found {
			if hits := search(t, s, ws.ID, q, model.SearchFilter{}); len(hits) != 1 {
				t.Errorf("%s: %d hits for %s, want the article", s.Dialect(), len(hits), q)
			}
		}
		for _, q := range missing {
			if hits := search(t, s, ws.ID, q, model.SearchFilter{}); len(hits) != 0 {
				t.Errorf("%s: %d hits for %s, want none", s.Dialect(), len(hits), q)
			}
		}
	})
}

// TestSaveRunsNoTextParser: on PostgreSQL no trigger runs at INSERT into
// feed_articles (the server's text parser, to_tsvector, ran in one), and
// the stored vector is the daemon's: folded lexemes PostgreSQL's english
// configuration would not make ('zurich', not 'zürich'), the title
// weighted A, the body C.
func TestSaveRunsNoTextParser(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.Postgres)
	var inserting int
	if err := s.DB().GetContext(ctx, &inserting, `SELECT count(*) FROM pg_trigger
		WHERE tgrelid = 'feed_articles'::regclass AND NOT tgisinternal AND tgtype & 4 <> 0`); err != nil {
		t.Fatal(err)
	}
	if inserting != 0 {
		t.Errorf("%d triggers run at INSERT into feed_articles, want none", inserting)
	}
	ws, srcs := seed(t, s, "https://words.example/feed")
	ids := saveThroughPoll(t, s, ws, srcs[0], []model.NewArticle{{Article: model.FeedArticle{
		ExternalURL: "https://words.example/1", Title: "Zoo news", ContentMarkdown: lexemeBody, ContentTextHash: "w1"}}})
	var row struct {
		Vector  string `db:"v"`
		Lexemes int    `db:"search_lexemes"`
	}
	if err := s.DB().GetContext(ctx, &row, `SELECT search_vector::text AS v, search_lexemes FROM feed_articles WHERE id = $1`,
		ids["https://words.example/1"]); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`'zurich':12C`, `'zoo':1A,19C`, `'news':2A`, `'quokka':4C`} {
		if !strings.Contains(row.Vector, want) {
			t.Errorf("stored vector %s lacks %s", row.Vector, want)
		}
	}
	if strings.Contains(row.Vector, "zürich") || row.Lexemes != 1 {
		t.Errorf("stored vector %s (search_lexemes %d): not the daemon's", row.Vector, row.Lexemes)
	}
}

// TestSearchLexemesMigrationRecomputesOlderRows: an article stored before
// migration 0017 (its vector made by PostgreSQL's parser, which keeps a
// URL whole and an accent) and one an older binary wrote after it (no
// vector) are found like a new one once IndexSearchText has run, on both
// databases; a second run has nothing left to do.
func TestSearchLexemesMigrationRecomputesOlderRows(t *testing.T) {
	const lexemesVersion = 17
	queries := []string{`zurich`, `zoo.example.org/docs`, `move-guide`, `quokka`}
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := migrateTo(t, d, lexemesVersion)
			db := s.DB()
			var ws int64
			if err := db.GetContext(ctx, &ws, `INSERT INTO workspaces (name) VALUES ('old') RETURNING id`); err != nil {
				t.Fatal(err)
			}
			insert := func(url string) {
				t.Helper()
				if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO feed_articles (workspace_id, external_url, title, content_markdown)
					VALUES (?, ?, 'Zoo news', ?)`), ws, url, lexemeBody); err != nil {
					t.Fatal(err)
				}
			}
			insert("https://old.example/before")
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			insert("https://old.example/older-binary")
			n, err := s.IndexSearchText(ctx)
			if want := map[string]int64{store.Postgres: 2, store.SQLite: 0}[d]; err != nil || n != want {
				t.Errorf("IndexSearchText: %d, %v; want %d", n, err, want)
			}
			for _, q := range queries {
				if hits := search(t, s, ws, q, model.SearchFilter{}); len(hits) != 2 {
					t.Errorf("%s: %d hits, want both older articles", q, len(hits))
				}
			}
			if n, err := s.IndexSearchText(ctx); err != nil || n != 0 {
				t.Errorf("IndexSearchText again: %d, %v; want nothing left", n, err)
			}
		})
	}
}
