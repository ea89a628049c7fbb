package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// docsReader is a StoryPlacer that reads the workspace's article count
// of the month before at through the save's view, then hands the save
// to inner.
type docsReader struct {
	inner model.StoryPlacer
	at    time.Time
	docs  int
}

func (d *docsReader) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	read, err := view.StoryDocFreq(ctx, req.WorkspaceID, nil, d.at.Add(-30*24*time.Hour))
	if err != nil {
		return model.StoryPlacement{}, err
	}
	d.docs = read.Docs
	return d.inner.PlaceStories(ctx, view, req)
}

// TestArticleCountOfSourcesAddsUp: sources of one workspace save an
// article each. Each adds it to a row of the week's article count of its
// own (not one row every save of the workspace writes), and a placement
// reads the sum of them: every article stored before its save.
func TestArticleCountOfSourcesAddsUp(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		const sources = 4
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		urls := make([]string, sources)
		for i := range urls {
			urls[i] = fmt.Sprintf("https://s%d.example/feed", i)
		}
		ws, srcs := seed(t, s, urls...)
		bodies := []string{wire, otherQuake, other}
		for i := range sources - 1 {
			a := storyArticle(fmt.Sprintf("https://s%d.example/a", i), fmt.Sprintf("Report %d", i), bodies[i], t0, false)
			savePoll(t, s, ws, srcs[i], placer(t, []model.NewArticle{a}), a)
		}
		last := storyArticle("https://s3.example/a", "Chile quake: no tsunami", ownReport, t0.Add(time.Minute), false)
		read := &docsReader{inner: placer(t, []model.NewArticle{last}), at: t0}
		savePoll(t, s, ws, srcs[sources-1], read, last)
		if read.docs != sources-1 {
			t.Errorf("the last save read an article count of %d, want %d", read.docs, sources-1)
		}
		q := `FROM story_doc_freq WHERE workspace_id = ? AND term = 0`
		if n := count(t, s, `SELECT SUM(docs) `+q, ws.ID); n != sources {
			t.Errorf("the week counts %d articles, want %d", n, sources)
		}
		if n := count(t, s, `SELECT COUNT(*) `+q, ws.ID); n != sources {
			t.Errorf("the %d sources' saves added to %d rows of the article count, want one each", sources, n)
		}
	})
}

// TestSaveDoesNotWaitOnAnotherSourcesArticleCount: on PostgreSQL, while
// one source's save has added its article to the workspace's count and
// not yet committed, a save of another source of the workspace, whose
// article shares no index term with it, commits: it does not wait on the
// row lock of the first save's addition.
func TestSaveDoesNotWaitOnAnotherSourcesArticleCount(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	ctx := context.Background()
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
	tx, err := s.DB().BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := s.AddDocFreq(ctx, tx, ws.ID, srcs[0].ID, []model.StoryDocCount{{Period: model.StoryPeriod(t0), Term: 0, Docs: 1}}); err != nil {
		t.Fatal(err)
	}
	a := storyArticle("https://b.example/rates", "Central bank raises rates", other, t0, false)
	done := make(chan error, 1)
	go func() {
		_, err := trySavePoll(s, ws, srcs[1], placer(t, []model.NewArticle{a}), a)
		done <- err
	}()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if n := count(t, s, `SELECT SUM(docs) FROM story_doc_freq WHERE workspace_id = ? AND term = 0`, ws.ID); n != 1 {
				t.Errorf("the week counts %d committed articles, want 1", n)
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
		// The save waits on a lock only if the other save holds one it
		// needs: then it is in pg_stat_activity, waiting on a lock.
		if n := count(t, s, `SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE '%story_doc_freq%'`); n > 0 {
			_ = tx.Rollback() // let it go on, so the test ends
			err := <-done
			t.Fatalf("the save waited on the other source's uncommitted article count (then ended: %v)", err)
		}
	}
}

// TestDocFreqOfEveryTermReadsBack: a term is any 32-bit value; what a
// save adds under one is read back under it, whatever its high bit
// (PostgreSQL keeps terms in 32-bit INTEGERs, migration 0024).
func TestDocFreqOfEveryTermReadsBack(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		ws, srcs := seed(t, s, "https://a.example/feed")
		terms := []uint32{7, 1<<31 - 1, 1 << 31, 0xdeadbeef, 0xffffffff}
		var counts []model.StoryDocCount
		for i, term := range terms {
			counts = append(counts, model.StoryDocCount{Period: model.StoryPeriod(t0), Term: term, Docs: i + 1})
		}
		tx, err := s.DB().BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		for range 2 {
			if err := s.AddDocFreq(ctx, tx, ws.ID, srcs[0].ID, counts); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ReadDocFreq(ctx, tx, ws.ID, append(terms, 8), t0.Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for i, term := range terms {
			if got.Terms[term] != 2*(i+1) {
				t.Errorf("term %#x: %d documents read back, want %d", term, got.Terms[term], 2*(i+1))
			}
		}
		if len(got.Terms) != len(terms) {
			t.Errorf("read back %v, want the %d terms added only", got.Terms, len(terms))
		}
	})
}
