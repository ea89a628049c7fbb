package store_test

import (
	"context"
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
