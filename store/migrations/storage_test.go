package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/migrations"
)

// storageVersion is the PostgreSQL migration that sets how an article's
// row is stored.
const storageVersion = 20

// TestArticleStorageMigration: after migration 0020 (and 0031, which
// gives the full-text index the server's pending list again) the vector
// and the profile are stored
// without a compression attempt, and an article's text is compressed with
// lz4 when the server offers it (pglz otherwise), so a long body is
// stored compressed either way.
func TestArticleStorageMigration(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, testdb.URL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db := st.DB()
	// Migration 0031 set the pending list back to the server's default:
	// the index keeps no option of its own.
	var opts string
	if err := db.Get(&opts, `SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE relname = 'feed_articles_search'`); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(opts, "gin_pending_list_limit") {
		t.Errorf("feed_articles_search options %q, want the server's pending list limit", opts)
	}
	wantMethod := "pglz"
	if lz4Offered(t, db) {
		wantMethod = "lz4"
	}
	for col, want := range map[string]string{"search_vector": "e", "story_profile": "e", "content_markdown": "x"} {
		if got := attribute(t, db, "attstorage", col); got != want {
			t.Errorf("storage of %s %q, want %q", col, got, want)
		}
	}
	db.MustExec(`INSERT INTO workspaces (name) VALUES ('w')`)
	body := strings.Repeat("A paragraph of an article, long enough to be compressed. ", 200)
	db.MustExec(`INSERT INTO feed_articles (workspace_id, external_url, content_markdown, summary, extractive_summary, content_text_hash)
		VALUES (1, 'https://a.example/1', $1, $1, $1, 'h1')`, body)
	var got struct {
		Body    string `db:"body"`
		Summary string `db:"summary"`
		Extract string `db:"extract"`
		Text    string `db:"content_markdown"`
	}
	if err := db.Get(&got, `SELECT COALESCE(pg_column_compression(content_markdown), '') AS body,
		COALESCE(pg_column_compression(summary), '') AS summary,
		COALESCE(pg_column_compression(extractive_summary), '') AS extract, content_markdown FROM feed_articles`); err != nil {
		t.Fatal(err)
	}
	if got.Body != wantMethod || got.Summary != wantMethod || got.Extract != wantMethod {
		t.Errorf("compression of body, summary, extractive summary: %q %q %q, want %s", got.Body, got.Summary, got.Extract, wantMethod)
	}
	if got.Text != body {
		t.Errorf("the body read back differs from the one stored (%d bytes, want %d)", len(got.Text), len(body))
	}
}

// TestArticleStorageMigrationWithoutMethod: on a server that lacks the
// compression method, migration 0020 keeps pglz and applies. A server
// built without lz4 is played by asking for a method no PostgreSQL
// offers for TOAST; unguarded, the ALTER would fail on it.
func TestArticleStorageMigrationWithoutMethod(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, testdb.URL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db := st.DB()
	ms, err := migrations.List(store.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Version == storageVersion {
			if n := strings.Count(m.SQL, "lz4"); n < 2 {
				t.Fatalf("migration %s names lz4 %d times: the test no longer plays a server without it", m.Name, n)
			}
			if _, err := db.ExecContext(ctx, strings.ReplaceAll(m.SQL, "lz4", "zstd")); err != nil {
				t.Fatalf("migration %s on a server without the method: %v", m.Name, err)
			}
			break
		}
		db.MustExec(m.SQL)
	}
	if got := attribute(t, db, "attcompression", "content_markdown"); got != "" {
		t.Errorf("compression of content_markdown %q, want the server's default", got)
	}
	if got := attribute(t, db, "attstorage", "search_vector"); got != "e" {
		t.Errorf("storage of search_vector %q, want e", got)
	}
}

// lz4Offered reports whether the server can compress with lz4.
func lz4Offered(t *testing.T, db *sqlx.DB) bool {
	t.Helper()
	var ok bool
	if err := db.Get(&ok, `SELECT EXISTS (SELECT 1 FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`); err != nil {
		t.Fatal(err)
	}
	return ok
}

// attribute is a pg_attribute field of a column of feed_articles, as text.
func attribute(t *testing.T, db *sqlx.DB, field, column string) string {
	t.Helper()
	var v string
	if err := db.Get(&v, `SELECT `+field+`::text FROM pg_attribute
		WHERE attrelid = 'feed_articles'::regclass AND attname = $1`, column); err != nil {
		t.Fatal(err)
	}
	return v
}
