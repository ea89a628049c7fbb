package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestDocFreqCopyReadsAnotherProcessesSaves: two processes save into one
// SQLite file. Each keeps a copy of the document frequencies; a save of
// one after a save of the other counts the other's article, and the
// other way round.
func TestDocFreqCopyReadsAnotherProcessesSaves(t *testing.T) {
	url := testdb.URL(t, store.SQLite)
	open := func() *store.Store {
		s, err := store.OpenWith(context.Background(), url, store.Options{DeliveryPayload: webhooks.DeliveryPayload})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if _, err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := open(), open()
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seed(t, a, "https://a.example/feed", "https://b.example/feed")
	bodies := []string{wire, otherQuake, other, ownReport}
	for i, s := range []*store.Store{a, b, a, b} {
		art := storyArticle(fmt.Sprintf("https://x.example/%d", i), fmt.Sprintf("Report %d", i), bodies[i], t0.Add(time.Duration(i)*time.Minute), false)
		read := &docsReader{inner: placer(t, []model.NewArticle{art}), at: t0}
		savePoll(t, s, ws, srcs[i%2], read, art)
		if read.docs != i {
			t.Errorf("save %d (process %d) read an article count of %d, want %d: every article saved before it", i, i%2, read.docs, i)
		}
	}
}

// TestDocFreqCopyForgetsPrunedWeeks: once the weeks before the window
// are pruned, a save that reads back into them (an article reported long
// ago) no longer counts their articles, as the table does not.
func TestDocFreqCopyForgetsPrunedWeeks(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		ws, srcs := seed(t, s, "https://a.example/feed")
		old := storyArticle("https://a.example/old", "Report", wire, t0, false)
		savePoll(t, s, ws, srcs[0], &docsReader{inner: placer(t, []model.NewArticle{old}), at: t0}, old)
		later := t0.Add(60 * 24 * time.Hour)
		next := storyArticle("https://a.example/next", "Report", otherQuake, later, false)
		read := &docsReader{inner: placer(t, []model.NewArticle{next}), at: t0}
		savePoll(t, s, ws, srcs[0], read, next)
		if read.docs != 1 {
			t.Fatalf("before the prune a save read %d articles of the old week, want 1", read.docs)
		}
		if _, err := s.PruneStoryTerms(context.Background(), later, later.Add(-30*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		last := storyArticle("https://a.example/last", "Report", other, later, false)
		read = &docsReader{inner: placer(t, []model.NewArticle{last}), at: t0}
		savePoll(t, s, ws, srcs[0], read, last)
		if read.docs != 1 {
			t.Errorf("after the prune a save read %d articles since the old week, want 1 (the next one only)", read.docs)
		}
	})
}

// TestDocFreqCopyIsTheTable: whatever saves add (committed or rolled
// back, in any weeks), prunes delete, and a save reads (any week on), the
// copy a save reads answers what the table does.
func TestDocFreqCopyIsTheTable(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(7, 11))
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		other, _ := seedNamed(t, s, "other", "https://c.example/feed")
		base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
		week := int64(model.StoryPeriodLength / time.Second)
		terms := make([]uint32, 40)
		for i := range terms {
			terms[i] = uint32(i + 1)
		}
		for round := range 60 {
			tx, err := s.DB().BeginTxx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Read as a save does, then add as a save does.
			since := time.Unix((base+int64(rng.IntN(10)))*week, 0)
			if _, err := s.ReadDocFreqAsSave(ctx, tx, ws.ID, terms, since); err != nil {
				t.Fatal(err)
			}
			// Each (week, term) once, as a save counts them.
			added := map[[2]int64]int{}
			for range rng.IntN(30) {
				added[[2]int64{base + int64(rng.IntN(12)), int64(rng.IntN(41))}] += 1 + rng.IntN(3)
			}
			var counts []model.StoryDocCount
			for k, n := range added {
				counts = append(counts, model.StoryDocCount{Period: k[0], Term: uint32(k[1]), Docs: n})
			}
			target := ws.ID
			if round%7 == 3 {
				target = other.ID // another workspace's save
			}
			if err := s.AddDocFreq(ctx, tx, target, srcs[rng.IntN(2)].ID, counts); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(4) == 0 {
				_ = tx.Rollback()
			} else if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if round%13 == 12 {
				freqBefore := time.Unix((base+int64(round/13))*week, 0)
				if _, err := s.PruneStoryTerms(ctx, freqBefore, freqBefore); err != nil {
					t.Fatal(err)
				}
			}
			tx, err = s.DB().BeginTxx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			since = time.Unix((base+int64(rng.IntN(13))-1)*week, 0)
			got, err := s.ReadDocFreqAsSave(ctx, tx, ws.ID, terms, since)
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.ReadDocFreq(ctx, tx, ws.ID, terms, since)
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if got.Docs != want.Docs || fmt.Sprint(got.Terms) != fmt.Sprint(want.Terms) {
				t.Fatalf("round %d, since week %d: a save read %d articles, %v; the table holds %d, %v",
					round, model.StoryPeriod(since)-base, got.Docs, got.Terms, want.Docs, want.Terms)
			}
		}
	})
}
