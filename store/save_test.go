package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestSavePollCutsLongErrorsOnARuneBoundary: an error text longer than
// what is stored, whose cut falls inside a multi-byte character, is
// stored cut before that character, on the source and on its poll run,
// through both ways a poll is saved (the single bookkeeping statement of
// a poll without articles, and the transaction). PostgreSQL refuses a
// split character outright, which would lose the whole poll.
func TestSavePollCutsLongErrorsOnARuneBoundary(t *testing.T) {
	long := strings.Repeat("x", 1999) + strings.Repeat("é", 100) // byte 2000 is the middle of an é
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://cut.example/feed")
		for _, withArticle := range []bool{false, true} {
			if got, err := s.ClaimDue(ctx, "me", 10, time.Minute); err != nil || len(got) != 1 {
				t.Fatalf("claim: %d %v", len(got), err)
			}
			p := model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID, Owner: "me",
				Source: model.SourceUpdate{Status: model.StatusError, Error: long, Failed: true, NextPollAt: time.Now().Add(-time.Second)},
				Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusError, Error: long}}
			if withArticle {
				p.Articles = []model.NewArticle{article("https://cut.example/1", "cut-1", false)}
			}
			if _, err := s.SavePoll(ctx, p); err != nil {
				t.Fatalf("save (article: %v): %v", withArticle, err)
			}
			src, err := s.GetSource(ctx, ws.ID, srcs[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := s.ListPollRuns(ctx, srcs[0].ID, 1)
			if err != nil || len(runs) != 1 {
				t.Fatalf("poll runs: %v %d", err, len(runs))
			}
			want := strings.Repeat("x", 1999)
			for what, got := range map[string]string{"source error": src.LastPolledError, "poll run error": runs[0].Error} {
				if got != want || !utf8.ValidString(got) {
					t.Errorf("%s (article: %v): %d bytes, valid UTF-8 %v; want the 1999 bytes before the split character",
						what, withArticle, len(got), utf8.ValidString(got))
				}
			}
		}
	})
}

// TestSavePollRedoneAfterADeadlock: when PostgreSQL breaks a deadlock by
// aborting a poll's save, the save is done again at once, and the poll
// is kept, where it used to fail (and wait for its lease to run out).
// The save locks its source's row first, then inserts the poll's two
// articles in order. A first transaction holds an uncommitted article of
// the first URL, so the save waits for it; meanwhile the other
// transaction, holding one of the second URL, asks for the source's row
// and waits for the save. When the first rolls back, the save goes on to
// the second URL and closes the cycle itself, so its own check (the
// server's default deadlock_timeout, the other's set to an hour) finds
// it, whatever the machine's load: PostgreSQL aborts the save.
func TestSavePollRedoneAfterADeadlock(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.Postgres)
	ws, srcs := seed(t, s, "https://deadlock.example/feed")
	if got, err := s.ClaimDue(ctx, "me", 10, time.Minute); err != nil || len(got) != 1 {
		t.Fatalf("claim: %d %v", len(got), err)
	}
	const firstURL, secondURL = "https://deadlock.example/1", "https://deadlock.example/2"
	holding := func(url, deadlockTimeout string) *sql.Tx {
		t.Helper()
		conn, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		if _, err := conn.ExecContext(ctx, `SET deadlock_timeout = '`+deadlockTimeout+`'`); err != nil {
			t.Fatal(err)
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback() })
		if _, err := tx.ExecContext(ctx, `INSERT INTO feed_articles (workspace_id, feed_source_id, external_url) VALUES ($1, $2, $3)`,
			ws.ID, srcs[0].ID, url); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	first, other := holding(firstURL, "1h"), holding(secondURL, "1h")
	waiting := func(n int, done <-chan error, what string) {
		t.Helper()
		for count(t, s, `SELECT COUNT(*) FROM pg_locks WHERE NOT granted`) < n {
			select {
			case err := <-done:
				t.Fatalf("%s ended (%v) before waiting", what, err)
			default:
			}
		}
	}
	saved := make(chan error, 1)
	go func() {
		_, err := s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID, Owner: "me",
			Articles: []model.NewArticle{article(firstURL, "deadlock-1", true), article(secondURL, "deadlock-2", true)},
			Source:   model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
			Run:      model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}})
		saved <- err
	}()
	waiting(1, saved, "the save")
	updated := make(chan error, 1)
	go func() {
		_, err := other.ExecContext(ctx, `UPDATE feed_sources SET updated_at = updated_at WHERE id = $1`, srcs[0].ID)
		updated <- err
	}()
	waiting(2, updated, "the other transaction's update")
	if err := first.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-updated; err != nil {
		t.Fatalf("the other transaction was the one aborted: %v", err)
	}
	if err := other.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-saved; err != nil {
		t.Fatalf("the save failed: %v", err)
	}
	for _, url := range []string{firstURL, secondURL} {
		if got := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE external_url = ?`, url); got != 1 {
			t.Errorf("%d articles of %s, want 1", got, url)
		}
	}
	if got := count(t, s, `SELECT COUNT(*) FROM poll_runs WHERE feed_source_id = ?`, srcs[0].ID); got != 1 {
		t.Errorf("%d poll runs, want 1", got)
	}
}
