package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// The same saves and reads give the same rows whether the SQLite
// connections keep no prepared statement, two (each save evicts most of
// its statements and keeps the others busy) or the default number.
func TestSQLiteStatementCacheSameResults(t *testing.T) {
	var want string
	for _, size := range []int{-1, 2, 0} {
		got := savesAndReads(t, openURL(t, testdb.URL(t, store.SQLite), store.Options{StatementCache: size}))
		if size == -1 {
			want = got
			continue
		}
		if got != want {
			t.Errorf("with StatementCache %d:\n%s\nwith no statement kept:\n%s", size, got, want)
		}
	}
	if !strings.Contains(want, "story") {
		t.Fatalf("the saves formed no story: %s", want)
	}
}

// savesAndReads saves polls of 1 to 5 articles (so their multi-row
// statements differ in length), some of them again, and prints what the
// listings read back.
func savesAndReads(t *testing.T, s *store.Store) string {
	t.Helper()
	ctx := context.Background()
	ws, srcs := seed(t, s, "https://f.example/a", "https://f.example/b")
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var out strings.Builder
	for round := range 6 {
		src := srcs[round%2]
		if _, err := s.ClaimSource(ctx, ws.ID, src.ID, "me", time.Minute); err != nil {
			t.Fatal(err)
		}
		var arts []model.NewArticle
		for i := range round%5 + 1 {
			n := (round*3 + i) % 11 // repeats some URLs and bodies of earlier rounds
			a := article(fmt.Sprintf("https://x/%d/%d", round%2, n), fmt.Sprintf("h%d", n), n%3 != 0)
			a.Article.ContentMarkdown = fmt.Sprintf("Flood waters rose in Valencia on day %d as rescue teams evacuated %d residents from the old town.", n%4, 100+n%4)
			pub := at.Add(time.Duration(n) * time.Minute)
			a.Article.PublishedAt = &pub
			arts = append(arts, a)
		}
		c, err := s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: src.ID, Owner: "me", Articles: arts,
			Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: at.Add(time.Hour)},
			Run:    model.PollRun{StartedAt: at, Outcome: model.StatusOK, ItemsSeen: len(arts)}})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "save %d: %+v\n", round, c)
	}
	arts, err := s.ListArticles(ctx, ws.ID, model.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arts {
		story := "none"
		if a.StoryID != nil {
			story = fmt.Sprint("story ", *a.StoryID)
		}
		fmt.Fprintf(&out, "article %d %s %s %s\n", a.ID, a.ExternalURL, story, a.StoryReason)
	}
	items, err := s.ListContentItems(ctx, ws.ID, model.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		fmt.Fprintf(&out, "item %d %s\n", it.ID, it.URL)
	}
	for _, src := range srcs {
		runs, err := s.ListPollRuns(ctx, src.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			fmt.Fprintf(&out, "run %d new %d duplicate %d promoted %d\n", src.ID, r.ItemsNew, r.ItemsDuplicate, r.ItemsPromoted)
		}
	}
	return out.String()
}
