package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func TestMigrateTwiceIsNoop(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		applied, err := s.Migrate(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(applied) != 0 {
			t.Fatalf("second migrate applied %v, want nothing", applied)
		}
		if err := s.Ready(context.Background()); err != nil {
			t.Fatalf("ready after migrate: %v", err)
		}
	})
}

func seed(t *testing.T, s *store.Store, urls ...string) (*model.Workspace, []*model.FeedSource) {
	t.Helper()
	return seedNamed(t, s, "ws-"+t.Name(), urls...)
}

// seedNamed is seed for a test that needs more than one workspace.
func seedNamed(t *testing.T, s *store.Store, name string, urls ...string) (*model.Workspace, []*model.FeedSource) {
	t.Helper()
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, name, model.RelevanceProfile{Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var srcs []*model.FeedSource
	for _, u := range urls {
		src := &model.FeedSource{WorkspaceID: ws.ID, URL: u, SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}
		if err := s.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	return ws, srcs
}

func TestSourceUniquePerWorkspace(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s, "https://example.com/feed")
		err := s.CreateSource(context.Background(), &model.FeedSource{WorkspaceID: ws.ID, URL: "https://example.com/feed",
			SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30})
		if !errors.Is(err, model.ErrConflict) {
			t.Fatalf("second create: %v, want ErrConflict", err)
		}
	})
}

func TestClaimLeasesAndSkipsClaimed(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		seed(t, s, "https://a.example/1", "https://a.example/2", "https://a.example/3")
		first, err := s.ClaimDue(ctx, "a", 2, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		second, err := s.ClaimDue(ctx, "b", 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) != 2 || len(second) != 1 {
			t.Fatalf("claimed %d then %d, want 2 then 1", len(first), len(second))
		}
		if third, _ := s.ClaimDue(ctx, "c", 10, time.Minute); len(third) != 0 {
			t.Fatalf("claimed %d sources that are leased", len(third))
		}
		// An expired lease makes the source due again by itself.
		expired, err := s.ClaimDue(ctx, "d", 10, -time.Second)
		if err != nil || len(expired) != 0 {
			t.Fatalf("claim: %v %d", err, len(expired))
		}
	})
}

func TestConcurrentClaimsNeverOverlap(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		urls := make([]string, 60)
		for i := range urls {
			urls[i] = fmt.Sprintf("https://c.example/%d", i)
		}
		seed(t, s, urls...)
		var mu sync.Mutex
		seen := map[int64]string{}
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(owner string) {
				defer wg.Done()
				for {
					got, err := s.ClaimDue(ctx, owner, 5, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, src := range got {
						if prev, dup := seen[src.ID]; dup {
							t.Errorf("source %d claimed by %s and %s", src.ID, prev, owner)
						}
						seen[src.ID] = owner
					}
					mu.Unlock()
				}
			}(fmt.Sprintf("w%d", w))
		}
		wg.Wait()
		if len(seen) != len(urls) {
			t.Fatalf("claimed %d of %d sources", len(seen), len(urls))
		}
	})
}

func article(url, hash string, promote bool) model.NewArticle {
	return model.NewArticle{Article: model.FeedArticle{ExternalURL: url, Title: "T " + url, ContentMarkdown: "body",
		ContentTextHash: hash, RelevanceScore: 0.9, MatchedTerms: []string{"go"}}, Promote: promote}
}

func TestSavePollDedupsAndPromotes(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://f.example/a", "https://f.example/b")
		claimed, _ := s.ClaimDue(ctx, "me", 10, time.Minute)
		if len(claimed) != 2 {
			t.Fatalf("claimed %d", len(claimed))
		}
		save := func(src *model.FeedSource, arts ...model.NewArticle) model.SaveCounts {
			t.Helper()
			c, err := s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: src.ID, Owner: "me", Articles: arts,
				Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now().Add(30 * time.Minute)},
				Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: len(arts)}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		c := save(srcs[0], article("https://x/1", "h1", true), article("https://x/2", "h2", false), article("https://x/3", "h3", true))
		if c.New != 3 || c.Promoted != 2 {
			t.Fatalf("first save %+v, want 3 new 2 promoted", c)
		}
		// The same story through a second feed: URL differs, content hash same.
		c = save(srcs[1], article("https://y/1", "h1", true), article("https://x/1", "h1", true))
		// Each article is new or a duplicate, never both: the one with the
		// promoted content is new (stored, not promoted), the taken URL a
		// duplicate.
		if c.New != 1 || c.Promoted != 0 || c.ContentDuplicates != 1 || c.Duplicate != 1 {
			t.Fatalf("second save %+v, want 1 new (a content duplicate, not promoted) and 1 duplicate", c)
		}
		// A one-item poll whose item has content already promoted: seen 1,
		// new 1, duplicate 0.
		if _, err := s.ClaimSource(ctx, ws.ID, srcs[1].ID, "me", time.Minute); err != nil {
			t.Fatal(err)
		}
		if c := save(srcs[1], article("https://z/1", "h3", true)); c.New != 1 || c.Duplicate != 0 || c.ContentDuplicates != 1 {
			t.Fatalf("one item of known content: %+v, want new 1 and duplicate 0 (the counts add up to the items)", c)
		}
		items, err := s.ListContentItems(ctx, ws.ID, model.ListFilter{})
		if err != nil || len(items) != 2 {
			t.Fatalf("content items: %v %d", err, len(items))
		}
		if items[0].SourceID == nil || items[0].MatchedTerms[0] != "go" {
			t.Fatalf("item view lacks source or terms: %+v", items[0])
		}
		known, err := s.KnownArticles(ctx, ws.ID, srcs[0].ID, []string{"https://x/1", "https://nope"}, nil)
		if err != nil || len(known.ByURL) != 1 {
			t.Fatalf("known: %v %+v", err, known)
		}
		runs, _ := s.ListPollRuns(ctx, srcs[1].ID, 5)
		if len(runs) != 2 || runs[1].ItemsNew != 1 || runs[1].ItemsDuplicate != 1 || runs[0].ItemsNew != 1 || runs[0].ItemsDuplicate != 0 {
			t.Fatalf("poll runs: %+v", runs)
		}
		arts, _ := s.ListArticles(ctx, ws.ID, model.ListFilter{Query: "x/2"})
		if len(arts) != 1 {
			t.Fatalf("text query found %d articles", len(arts))
		}
	})
}

func TestFailuresPauseAndReactivationResets(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://dead.example/feed")
		for i := 0; i < model.MaxConsecutiveFailures; i++ {
			got, err := s.ClaimDue(ctx, "me", 10, time.Minute)
			if err != nil || len(got) != 1 {
				t.Fatalf("poll %d: claimed %d (%v)", i, len(got), err)
			}
			_, err = s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID, Owner: "me",
				Source: model.SourceUpdate{Status: model.StatusError, Error: "HTTP 500", Failed: true, NextPollAt: time.Now().Add(-time.Second)},
				Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusError}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := s.ClaimDue(ctx, "me", 10, time.Minute); len(got) != 0 {
			t.Fatal("a source with 10 failures is still due")
		}
		src, _ := s.GetSource(ctx, ws.ID, srcs[0].ID)
		if src.ConsecutiveFailures != 10 || src.LastPolledError != "HTTP 500" {
			t.Fatalf("source after failures: %+v", src)
		}
		off, on := false, true
		if _, err := s.UpdateSource(ctx, ws.ID, src.ID, model.SourcePatch{IsActive: &off}); err != nil {
			t.Fatal(err)
		}
		src, err := s.UpdateSource(ctx, ws.ID, src.ID, model.SourcePatch{IsActive: &on})
		if err != nil {
			t.Fatal(err)
		}
		if src.ConsecutiveFailures != 0 || !src.IsActive {
			t.Fatalf("reactivated source: failures %d active %v", src.ConsecutiveFailures, src.IsActive)
		}
		if got, _ := s.ClaimDue(ctx, "me", 10, time.Minute); len(got) != 1 {
			t.Fatal("reactivated source is not due")
		}
	})
}

func TestTokens(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		tok, err := s.CreateToken(ctx, &ws.ID, "ci", "secret-1")
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.LookupToken(ctx, "secret-1")
		if err != nil || got.WorkspaceID == nil || *got.WorkspaceID != ws.ID {
			t.Fatalf("lookup: %v %+v", err, got)
		}
		if err := s.RevokeToken(ctx, ws.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.LookupToken(ctx, "secret-1"); !errors.Is(err, model.ErrNotFound) {
			t.Fatalf("revoked token still found: %v", err)
		}
	})
}
