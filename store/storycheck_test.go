package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// pausingPlacer hands the terms of its placer's first term index read to
// the test, and waits for the test before the read goes on.
type pausingPlacer struct {
	inner model.StoryPlacer
	terms chan []uint32
	goOn  chan struct{}
}

func (p *pausingPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	if p.terms != nil {
		view = &pausingView{StoryView: view, p: p}
	}
	return p.inner.PlaceStories(ctx, view, req)
}

type pausingView struct {
	model.StoryView
	p *pausingPlacer
}

func (v *pausingView) StoryPostings(ctx context.Context, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	if v.p.terms != nil {
		v.p.terms <- slices.Clone(q.Terms)
		v.p.terms = nil
		<-v.p.goOn
	}
	return v.StoryView.StoryPostings(ctx, q)
}

// TestSaveLocksItsTermsAfterStoringItsArticles: on PostgreSQL a save
// takes the locks of its index terms only once its articles are stored
// (their insert, with the full-text index, is its dearest statement), so
// another save of the workspace holding those terms does not keep it
// from storing them. Here another transaction holds every term of the
// save's placement; the save is found waiting for them with its articles
// inserted, and, once they are free, it commits its article in a story.
func TestSaveLocksItsTermsAfterStoringItsArticles(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	ctx := context.Background()
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seedArchived(t, s, 1, t0)
	arts := []model.NewArticle{storyArticle("https://s0.example/quake", "Chile quake: no tsunami", wire, t0, true)}
	plan := &pausingPlacer{inner: placer(t, arts), terms: make(chan []uint32, 1), goOn: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := trySavePoll(s, ws, srcs[0], plan, arts...)
		done <- err
	}()
	terms := <-plan.terms
	holder, err := s.DB().BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	keys := make([]int64, len(terms))
	for i, term := range terms {
		keys[i] = ws.ID<<32 | int64(term)
	}
	slices.Sort(keys)
	if _, err := holder.Exec(`SELECT COUNT(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS u(k)`, pq.Int64Array(keys)); err != nil {
		t.Fatal(err)
	}
	close(plan.goOn)

	// The save's backend, once it waits for an advisory lock.
	var pid int
	for deadline := time.Now().Add(time.Minute); pid == 0; {
		select {
		case err := <-done:
			t.Fatalf("the save ended (%v) while another transaction held its terms", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the save never waited for its terms' locks")
		}
		if err := s.DB().Get(&pid, `SELECT COALESCE(MAX(pid), 0) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM pg_locks WHERE pid = ? AND relation = 'feed_articles'::regclass AND mode = 'RowExclusiveLock'`, pid); n == 0 {
		t.Error("the save waits for its terms' locks before storing its articles")
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	quake := storyOf(t, s, "https://s0.example/quake")
	if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, quake); n != 1 {
		t.Errorf("the article's story counts %d articles, want 1", n)
	}
}
