package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestConsoleSessions: a session is found by its id's hash until it
// expires or is deleted; its flash is kept until replaced; a new sign-in
// prunes the expired ones.
func TestConsoleSessions(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := s.CreateConsoleSession(ctx, "live", "sealed-1", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateConsoleSession(ctx, "old", "sealed-2", time.Now().Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
		cs, err := s.ConsoleSession(ctx, "live")
		if err != nil || cs.Sealed != "sealed-1" || cs.Flash != "" {
			t.Fatalf("live session: %+v %v", cs, err)
		}
		if _, err := s.ConsoleSession(ctx, "old"); !errors.Is(err, model.ErrNotFound) {
			t.Fatalf("expired session: %v, want not found", err)
		}
		if err := s.SetConsoleFlash(ctx, "live", "ok\x1fpolled"); err != nil {
			t.Fatal(err)
		}
		if cs, _ := s.ConsoleSession(ctx, "live"); cs == nil || cs.Flash != "ok\x1fpolled" {
			t.Fatalf("flash not kept: %+v", cs)
		}
		// The next sign-in prunes the expired row.
		if err := s.CreateConsoleSession(ctx, "next", "sealed-3", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.DB().GetContext(ctx, &n, `SELECT COUNT(*) FROM console_sessions`); err != nil || n != 2 {
			t.Fatalf("%d sessions stored (%v), want the 2 live ones", n, err)
		}
		if err := s.DeleteConsoleSession(ctx, "live"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ConsoleSession(ctx, "live"); !errors.Is(err, model.ErrNotFound) {
			t.Fatalf("deleted session: %v, want not found", err)
		}
		if err := s.DeleteConsoleSession(ctx, "live"); err != nil {
			t.Fatalf("deleting twice: %v", err)
		}
	})
}

// TestActivityCounts: polls are counted per hour and outcome, articles
// per day and source, each in the bucket its time falls in counted back
// from the window's end; rows outside the window or of another workspace
// are not counted.
func TestActivityCounts(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://act.example/a", "https://act.example/b")
		other, err := s.CreateWorkspace(ctx, "other", model.RelevanceProfile{})
		if err != nil {
			t.Fatal(err)
		}
		otherSrc := &model.FeedSource{WorkspaceID: other.ID, URL: "https://act.example/other", SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}
		if err := s.CreateSource(ctx, otherSrc); err != nil {
			t.Fatal(err)
		}
		until := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
		since := until.Add(-48 * time.Hour)
		run := func(src int64, at time.Time, outcome string) {
			t.Helper()
			_, err := s.DB().ExecContext(ctx, s.DB().Rebind(`INSERT INTO poll_runs (feed_source_id, started_at, outcome) VALUES (?, ?, ?)`), src, at, outcome)
			if err != nil {
				t.Fatal(err)
			}
		}
		n := 0
		art := func(wsID int64, src *int64, at time.Time) {
			t.Helper()
			n++
			_, err := s.DB().ExecContext(ctx, s.DB().Rebind(`INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, created_at) VALUES (?, ?, ?, ?)`),
				wsID, src, fmt.Sprintf("https://act.example/post/%d", n), at)
			if err != nil {
				t.Fatal(err)
			}
		}
		a, b := srcs[0].ID, srcs[1].ID
		run(a, until.Add(-10*time.Minute), model.StatusOK)          // last hour
		run(b, until.Add(-20*time.Minute), model.StatusOK)          // last hour
		run(a, until.Add(-30*time.Minute), model.StatusError)       // last hour
		run(a, until.Add(-90*time.Minute), model.StatusNotModified) // an hour before
		run(a, since.Add(5*time.Minute), model.StatusOK)            // the first hour: 47 back
		run(a, since.Add(-time.Minute), model.StatusOK)             // before the window
		run(a, until.Add(time.Minute), model.StatusOK)              // after it
		run(otherSrc.ID, until.Add(-time.Minute), model.StatusOK)   // another workspace

		polls, err := s.PollActivity(ctx, ws.ID, since, until, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		want := []model.ActivityCount{{Ago: 0, Key: "error", Count: 1}, {Ago: 0, Key: "ok", Count: 2},
			{Ago: 1, Key: "not_modified", Count: 1}, {Ago: 47, Key: "ok", Count: 1}}
		if fmt.Sprint(polls) != fmt.Sprint(want) {
			t.Errorf("polls by hour: %v, want %v", polls, want)
		}

		art(ws.ID, &a, until.Add(-time.Hour))
		art(ws.ID, &a, until.Add(-2*time.Hour))
		art(ws.ID, &b, until.Add(-25*time.Hour))
		art(ws.ID, nil, until.Add(-3*time.Hour)) // its source was deleted
		art(ws.ID, &a, since.Add(-time.Hour))
		art(other.ID, &otherSrc.ID, until.Add(-time.Hour))
		arts, err := s.ArticleActivity(ctx, ws.ID, since, until, 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		wantArts := []model.ActivityCount{{Ago: 0, Key: "", Count: 1}, {Ago: 0, Key: fmt.Sprint(a), Count: 2}, {Ago: 1, Key: fmt.Sprint(b), Count: 1}}
		if fmt.Sprint(arts) != fmt.Sprint(wantArts) {
			t.Errorf("articles by day: %v, want %v", arts, wantArts)
		}
		if _, err := s.PollActivity(ctx, ws.ID, until, since, time.Hour); err == nil {
			t.Error("a window ending before it starts was accepted")
		}
	})
}

// TestLatestPollRuns: each polled source of the workspace maps to its
// newest run; unpolled sources and other workspaces' are absent.
func TestLatestPollRuns(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://latest.example/a", "https://latest.example/b", "https://latest.example/never")
		ins := func(src int64, outcome string, status int) {
			t.Helper()
			_, err := s.DB().ExecContext(ctx, s.DB().Rebind(`INSERT INTO poll_runs (feed_source_id, started_at, outcome, http_status, items_new) VALUES (?, ?, ?, ?, ?)`),
				src, time.Now(), outcome, status, status/100)
			if err != nil {
				t.Fatal(err)
			}
		}
		ins(srcs[0].ID, model.StatusError, 500)
		ins(srcs[0].ID, model.StatusOK, 200)
		ins(srcs[1].ID, model.StatusNotModified, 304)
		got, err := s.LatestPollRuns(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[srcs[0].ID].Outcome != model.StatusOK || got[srcs[0].ID].ItemsNew != 2 ||
			got[srcs[1].ID].HTTPStatus != 304 {
			t.Fatalf("latest runs: %+v", got)
		}
		if _, ok := got[srcs[2].ID]; ok {
			t.Error("a source never polled has a run")
		}
	})
}
