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

// TestDocFreqReadLooksUpEachTerm: in a workspace that has counted many
// terms (the vocabulary of tens of thousands of news articles), reading
// the frequencies of a poll's terms looks each of them up by the primary
// key; it never reads every row of the workspace's recent weeks, which
// cost one workspace of 30 000 news articles 0.2–0.5 s a poll. On
// PostgreSQL: SQLite's saves read their process's copy of the
// frequencies (TestFreqCopyIsTheTableAcrossProcesses).
func TestDocFreqReadLooksUpEachTerm(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	ctx := context.Background()
	ws, _ := seed(t, s, "https://a.example/feed")
	// 100 000 terms over four weeks, stored in no order of theirs (as
	// terms are hashes of words, counted as articles come).
	const terms, weeks = 100000, 4
	period := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	fill := `INSERT INTO story_doc_freq (workspace_id, period, term, shard, docs)
		SELECT ?, ? - w.n, t.term, 0, 1 + t.term % 7
		FROM (SELECT (n * 7919) % ` + fmt.Sprint(terms) + ` + 1 AS term FROM ` + series(s, "s", 0, terms-1) + `) AS t
		CROSS JOIN ` + series(s, "w", 0, weeks-1)
	if _, err := s.DB().ExecContext(ctx, s.DB().Rebind(fill), ws.ID, period); err != nil {
		t.Fatalf("fill the document frequencies: %v", err)
	}
	if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	asked := make([]int64, 0, 2000)
	for i := range 2000 {
		asked = append(asked, int64(1+i*(terms/2000)))
	}
	plan, err := s.ExplainDocFreqRead(ctx, ws.ID, asked, period-1)
	if err != nil {
		t.Fatal(err)
	}
	byKey := strings.Contains(plan, "story_doc_freq_pkey") || strings.Contains(plan, "SEARCH story_doc_freq USING PRIMARY KEY")
	// (PostgreSQL's log of small workspaces' counts, empty here, may be
	// scanned whole.)
	if !byKey || strings.Contains(plan, "Seq Scan on story_doc_freq d") || strings.Contains(plan, "Bitmap") || strings.Contains(plan, "SCAN story_doc_freq") {
		t.Errorf("the document-frequency read does not look each term up by the primary key:\n%s", plan)
	}
	// And it reads what was counted: the two weeks asked for.
	tx, err := s.DB().BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	read, err := s.ReadDocFreq(ctx, tx, ws.ID, []uint32{1, 7, terms, terms + 1}, time.Unix((period-1)*int64(model.StoryPeriodLength/time.Second), 0))
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32]int{1: 4, 7: 2, terms: 2 * (1 + terms%7)}
	if len(read.Terms) != len(want) || read.Terms[1] != want[1] || read.Terms[7] != want[7] || read.Terms[terms] != want[terms] {
		t.Errorf("read %v, want %v", read.Terms, want)
	}
}

// series is a table expression of the integers from to to as column n,
// under the name alias.
func series(s *store.Store, alias string, from, to int) string {
	if s.Dialect() == store.Postgres {
		return fmt.Sprintf("generate_series(%d, %d) AS %s(n)", from, to, alias)
	}
	return fmt.Sprintf("(WITH RECURSIVE r(n) AS (SELECT %d UNION ALL SELECT n + 1 FROM r WHERE n < %d) SELECT n FROM r) AS %s", from, to, alias)
}

// TestDocFreqUpdatesStayOnTheirPages: adding to a week's document
// frequencies again updates every row in place on PostgreSQL, without
// new index entries (heap-only tuples): each page keeps room for one
// more version of each of its rows, which the transaction adding to them
// cannot reclaim before it commits.
func TestDocFreqUpdatesStayOnTheirPages(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.Postgres)
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seed(t, s, "https://a.example/feed")
	// A few pages of rows of one week.
	var counts []model.StoryDocCount
	for term := range uint32(1000) {
		counts = append(counts, model.StoryDocCount{Period: model.StoryPeriod(t0), Term: term*7919 + 1, Docs: 1})
	}
	for round := range 2 {
		tx, err := s.DB().BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddDocFreq(ctx, tx, ws.ID, srcs[0].ID, counts); err != nil {
			t.Fatal(err)
		}
		var updated, hot int
		if err := tx.QueryRowContext(ctx, `SELECT pg_stat_get_xact_tuples_updated('story_doc_freq'::regclass),
			pg_stat_get_xact_tuples_hot_updated('story_doc_freq'::regclass)`).Scan(&updated, &hot); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			continue
		}
		if updated != len(counts) || hot < updated*95/100 {
			t.Errorf("adding to %d rows updated %d of them, %d in place; want all, nearly all in place", len(counts), updated, hot)
		}
	}
}

// TestDocFreqOfSeveralWeeksAddsUp: one save's counts may fall in several
// weeks, in any order; each week's are added to its own rows (the
// article count to the source's shard, a term's to shard 0), and a read
// sums the weeks of its window.
func TestDocFreqOfSeveralWeeksAddsUp(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		week, next := model.StoryPeriod(t0), model.StoryPeriod(t0.Add(7*24*time.Hour))
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		counts := []model.StoryDocCount{
			{Period: next, Term: 0, Docs: 2}, {Period: next, Term: 7, Docs: 1},
			{Period: week, Term: 0, Docs: 3}, {Period: week, Term: 7, Docs: 2}, {Period: week, Term: 9, Docs: 3},
			{Period: next, Term: 9, Docs: 2},
		}
		tx, err := s.DB().BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if err := s.AddDocFreq(ctx, tx, ws.ID, srcs[1].ID, counts); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			since        time.Time
			docs, t7, t9 int
		}{{t0, 5, 3, 5}, {t0.Add(7 * 24 * time.Hour), 2, 1, 2}} {
			got, err := s.ReadDocFreq(ctx, tx, ws.ID, []uint32{7, 9}, c.since)
			if err != nil {
				t.Fatal(err)
			}
			if got.Docs != c.docs || got.Terms[7] != c.t7 || got.Terms[9] != c.t9 {
				t.Errorf("since %s: %d articles, terms %v; want %d, 7: %d, 9: %d", c.since, got.Docs, got.Terms, c.docs, c.t7, c.t9)
			}
		}
		var shards int
		if err := tx.GetContext(ctx, &shards, s.DB().Rebind(`SELECT COUNT(*) FROM story_doc_freq
			WHERE workspace_id = ? AND (term = 0) = (shard = 0)`), ws.ID); err != nil {
			t.Fatal(err)
		}
		if shards != 0 {
			t.Errorf("%d rows in the wrong shard: the article count goes to the source's, a term's to shard 0", shards)
		}
	})
}
