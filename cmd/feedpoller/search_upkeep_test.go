package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/logbuf"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// fakeIndexer fails its first round and computes 5 vectors in each later
// one.
type fakeIndexer struct {
	rounds atomic.Int32
	calls  chan struct{}
}

func (f *fakeIndexer) IndexSearchText(context.Context) (int64, error) {
	n := f.rounds.Add(1)
	f.calls <- struct{}{}
	if n == 1 {
		return 2, errors.New("connection reset")
	}
	return 5, nil
}

// serve's search indexing runs at once and then at every interval; a
// failed round is logged with what it had done, and the next one runs;
// it stops with its context.
func TestIndexSearchTextLoop(t *testing.T) {
	ix := &fakeIndexer{calls: make(chan struct{})}
	logs := &logbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		indexSearchText(ctx, ix, time.Millisecond, slog.New(slog.NewTextHandler(logs, nil)))
		close(done)
	}()
	for range 3 {
		<-ix.calls
	}
	cancel()
	go func() {
		for range ix.calls {
		}
	}()
	<-done
	if out := logs.String(); !containsAll(out, "index search text", "connection reset", "articles_done=2",
		"search vectors computed", "articles=5") {
		t.Errorf("log: %s", out)
	}
}

// `feedpoller migrate` computes the search vectors that articles lack on
// PostgreSQL (here a row written without one, as an older binary writes
// it) and says how many; the article is then found.
func TestMigrateComputesSearchVectors(t *testing.T) {
	dir := t.TempDir()
	dbURL := testdb.URL(t, "postgres")
	env := quietEnv(dbURL)
	mustCLI(t, dir, env, "workspaces", "add", "--name", "older")
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var ws int64
	if err := st.DB().Get(&ws, `SELECT id FROM workspaces WHERE name = 'older'`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(`INSERT INTO feed_articles (workspace_id, external_url, title, content_markdown)
		VALUES ($1, 'https://older.example/1', 'Written by an older binary', 'A numbat was seen.')`, ws); err != nil {
		t.Fatal(err)
	}
	if out := mustCLI(t, dir, env, "migrate"); !strings.Contains(out, "search vectors computed for 1 articles") {
		t.Errorf("migrate: %q, want it to say it computed one vector", out)
	}
	hits, err := st.Search(context.Background(), ws, model.SearchFilter{Query: "numbat"})
	if err != nil || len(hits) != 1 {
		t.Errorf("search after migrate: %d hits, %v; want the article", len(hits), err)
	}
}
