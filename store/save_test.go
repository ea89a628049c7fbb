package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
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
// is kept, where it used to fail (and wait for its lease to run out). The
// other transaction holds an uncommitted article of the URL the poll
// saves, so that the save waits for it after locking its source's row;
// it then asks for that row, which closes the cycle. The saving store's
// sessions look for a deadlock 5 s into a wait and the other's never
// (within a minute), so PostgreSQL aborts the save.
func TestSavePollRedoneAfterADeadlock(t *testing.T) {
	ctx := context.Background()
	url := testdb.URL(t, store.Postgres)
	admin, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `DO $$ BEGIN
		EXECUTE format('ALTER DATABASE %I SET deadlock_timeout = %L', current_database(), '5s'); END $$`); err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenWith(ctx, url, store.Options{DeliveryPayload: webhooks.DeliveryPayload})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ws, srcs := seed(t, s, "https://deadlock.example/feed")
	if got, err := s.ClaimDue(ctx, "me", 10, time.Minute); err != nil || len(got) != 1 {
		t.Fatalf("claim: %d %v", len(got), err)
	}
	other, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, `SET deadlock_timeout = '1min'`); err != nil {
		t.Fatal(err)
	}
	tx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const articleURL = "https://deadlock.example/1"
	if _, err := tx.ExecContext(ctx, `INSERT INTO feed_articles (workspace_id, feed_source_id, external_url) VALUES ($1, $2, $3)`,
		ws.ID, srcs[0].ID, articleURL); err != nil {
		t.Fatal(err)
	}
	saved := make(chan error, 1)
	go func() {
		_, err := s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID, Owner: "me",
			Articles: []model.NewArticle{article(articleURL, "deadlock-1", true)},
			Source:   model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
			Run:      model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}})
		saved <- err
	}()
	for count(t, s, `SELECT COUNT(*) FROM pg_locks WHERE NOT granted`) == 0 {
		select {
		case err := <-saved:
			t.Fatalf("the save ended (%v) before waiting for the other transaction's article", err)
		default:
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE feed_sources SET updated_at = updated_at WHERE id = $1`, srcs[0].ID); err != nil {
		t.Fatalf("the other transaction was the one aborted (%v): the cycle closed after the save looked for one", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-saved; err != nil {
		t.Fatalf("the save failed: %v", err)
	}
	if got := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE external_url = ?`, articleURL); got != 1 {
		t.Errorf("%d articles of the poll's URL, want 1", got)
	}
	if got := count(t, s, `SELECT COUNT(*) FROM poll_runs WHERE feed_source_id = ?`, srcs[0].ID); got != 1 {
		t.Errorf("%d poll runs, want 1", got)
	}
}
