package store_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// freqEntries is workspace ws's document frequencies wherever they are
// kept (story_doc_freq_entries), by week and term, the saves' tokens
// left out.
func freqEntries(t *testing.T, s *store.Store, ws int64) map[[2]int64]int64 {
	t.Helper()
	rows, err := s.DB().Query(s.DB().Rebind(`SELECT period, term, SUM(docs) FROM story_doc_freq_entries
		WHERE workspace_id = ? AND term <> 1073741823 GROUP BY period, term`), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[[2]int64]int64{}
	for rows.Next() {
		var period, term, docs int64
		if err := rows.Scan(&period, &term, &docs); err != nil {
			t.Fatal(err)
		}
		out[[2]int64{period, term}] = docs
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// addCounts adds a save's counts to want, by week and term.
func addCounts(want map[[2]int64]int64, counts []model.StoryDocCount) {
	for _, c := range counts {
		want[[2]int64{c.Period, int64(c.Term)}] += int64(c.Docs)
	}
}

// saveArticle commits a save of source src's article i in week base of
// workspace ws (term 7 and a term of its own, 100+i), adding its counts
// to want, after reading asked from the week before on; it returns the
// read and the committed save.
func saveArticle(t *testing.T, s *store.Store, ws, src, base int64, i int, asked []uint32,
	want map[[2]int64]int64) (*model.StoryDocFreq, *store.FreqSave) {
	t.Helper()
	ctx := context.Background()
	counts := []model.StoryDocCount{{Period: base, Term: 0, Docs: 1}, {Period: base, Term: 7, Docs: 1},
		{Period: base, Term: uint32(100 + i), Docs: 1}}
	f, err := s.BeginFreqSave(ctx, ws, src)
	if err != nil {
		t.Fatal(err)
	}
	read, err := f.Read(ctx, asked, time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Add(ctx, counts); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	addCounts(want, counts)
	return read, f
}

// TestDocFreqLogFoldsIntoTheTable: a save in a workspace
// that counts fewer articles than the log's bound writes its features'
// counts as a row per week in story_doc_freq_log, and its article count
// in story_doc_freq; the first save that reads more moves the logged
// rows into the table. Reads and the entries add up to what the saves
// committed all along, a rolled back move loses nothing, and a term
// counted in both places is read as the sum.
func TestDocFreqLogFoldsIntoTheTable(t *testing.T) {
	testdb.EachStore(t, testDocFreqLogFolds)
}

func testDocFreqLogFolds(t *testing.T, s *store.Store) {
	s.LogDocFreqUnder(4)
	ctx := context.Background()
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	logRows := func() int {
		return count(t, s, `SELECT COUNT(*) FROM story_doc_freq_log WHERE workspace_id = ?`, ws.ID)
	}
	tableTerms := func() int {
		return count(t, s, `SELECT COUNT(*) FROM story_doc_freq WHERE workspace_id = ? AND term NOT IN (0, 1073741823)`, ws.ID)
	}
	want := map[[2]int64]int64{}
	// A save of one article each, in two weeks; term 7 in every one.
	counts := func(i int) []model.StoryDocCount {
		p := base + int64(i%2)
		return []model.StoryDocCount{{Period: p, Term: 0, Docs: 1}, {Period: p, Term: 7, Docs: 1}, {Period: p, Term: uint32(100 + i), Docs: 1}}
	}
	save := func(i int, commit bool) (read *model.StoryDocFreq) {
		t.Helper()
		f, err := s.BeginFreqSave(ctx, ws.ID, srcs[i%2].ID)
		if err != nil {
			t.Fatal(err)
		}
		if read, err = f.Read(ctx, []uint32{7, 100, 101}, since); err != nil {
			t.Fatal(err)
		}
		if err := f.Add(ctx, counts(i)); err != nil {
			t.Fatal(err)
		}
		if !commit {
			f.Rollback()
			return read
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		addCounts(want, counts(i))
		return read
	}
	for i := range 4 {
		read := save(i, true)
		if read.Docs != i || read.Terms[7] != i {
			t.Errorf("save %d read %d articles and term 7 in %d; want %d", i, read.Docs, read.Terms[7], i)
		}
		if got := logRows(); got != i+1 || tableTerms() != 0 {
			t.Errorf("after save %d (it read %d articles): %d logged rows and %d term rows in the table; want %d and none", i, i, got, tableTerms(), i+1)
		}
	}
	// While every feature is logged, the read looks up the article count
	// alone in the table, not each term asked for.
	asked := make([]int64, 0, 51)
	for i := range 51 {
		asked = append(asked, int64(i))
	}
	if s.Dialect() == store.Postgres {
		plan, err := s.ExplainDocFreqRead(ctx, ws.ID, asked, base-1)
		if err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`on story_doc_freq d .*loops=(\d+)`).FindStringSubmatch(plan); m == nil || m[1] != "1" {
			t.Errorf("the read of a workspace whose features are all logged looked terms up in the table:\n%s", plan)
		}
	}
	// The fifth reads 4 articles: it would move the log, but rolls back.
	save(4, false)
	if logRows() != 4 || !maps.Equal(freqEntries(t, s, ws.ID), want) {
		t.Errorf("a rolled back save changed the log: %d rows, entries %v, want 4 rows, %v", logRows(), freqEntries(t, s, ws.ID), want)
	}
	read := save(5, true)
	if read.Docs != 4 || read.Terms[7] != 4 || read.Terms[100] != 1 || read.Terms[101] != 1 {
		t.Errorf("the save that moves the log read %d articles, %v", read.Docs, read.Terms)
	}
	if logRows() != 0 || tableTerms() != 7 {
		t.Errorf("after the move: %d logged rows, %d term rows in the table; want none and 7", logRows(), tableTerms())
	}
	if got := freqEntries(t, s, ws.ID); !maps.Equal(got, want) {
		t.Errorf("entries after the move %v, want %v", got, want)
	}
	// Logged again (a bound above the count), then read with the table:
	// term 7 is in both.
	s.LogDocFreqUnder(100)
	save(6, true)
	if logRows() != 1 {
		t.Errorf("%d logged rows, want 1", logRows())
	}
	read = save(7, true)
	if read.Docs != 6 || read.Terms[7] != 6 {
		t.Errorf("read %d articles and term 7 in %d, want 6 and 6", read.Docs, read.Terms[7])
	}
	if got := freqEntries(t, s, ws.ID); !maps.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
}

// TestDocFreqLogConcurrentSaves: saves of one workspace at once (on
// SQLite, one after the other through its writer), some
// logging, some moving the log into the table, some rolling back, end
// with the entries of the saves that committed, each counted once.
func TestDocFreqLogConcurrentSaves(t *testing.T) {
	for _, c := range []struct {
		dialect       string
		under, foldAt int
	}{{store.Postgres, 0, 0}, {store.Postgres, 60, 0}, {store.Postgres, 1 << 30, 0}, {store.SQLite, 60, 0},
		{store.Postgres, 0, 40}, {store.SQLite, 0, 40}} {
		under, foldAt := c.under, c.foldAt
		t.Run(fmt.Sprintf("%s, log under %d articles, fold at %d counts", c.dialect, under, foldAt), func(t *testing.T) {
			s := testdb.Store(t, c.dialect)
			s.LogDocFreqUnder(under)
			s.FoldDocFreqAt(foldAt)
			ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed", "https://c.example/feed")
			base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
			var mu sync.Mutex
			var sawLog atomic.Bool
			want := map[[2]int64]int64{}
			saveConcurrently(t, s, ws.ID, srcs, base, 30, 29, func(r freqRound) time.Time { return r.since }, func(r freqRound) {
				mu.Lock()
				addCounts(want, r.counts)
				mu.Unlock()
				if count(t, s, `SELECT COUNT(*) FROM story_doc_freq_log`) > 0 {
					sawLog.Store(true)
				}
			})
			if got := freqEntries(t, s, ws.ID); !maps.Equal(got, want) {
				t.Errorf("entries after the saves differ from the committed counts:\n got %v\nwant %v", got, want)
			}
			logged := count(t, s, `SELECT COUNT(*) FROM story_doc_freq_log`)
			inTable := count(t, s, `SELECT COUNT(*) FROM story_doc_freq WHERE term NOT IN (0, 1073741823)`)
			switch {
			case under == 0 && foldAt == 0 && (logged != 0 || sawLog.Load()), under > 1000 && (logged == 0 || inTable != 0):
				t.Errorf("%d logged rows, %d term rows in the table with the log's bound at %d articles", logged, inTable, under)
			case (under == 60 || foldAt > 0) && (!sawLog.Load() || inTable == 0):
				t.Errorf("the saves logged (%v) and moved the log into the table (%d rows): want both", sawLog.Load(), inTable)
			}
		})
	}
}

// TestDocFreqLogMovedOncePerProcess: without folding (docFreqFoldAt 0),
// once a process's save has moved a workspace's log into the table, its
// saves no longer look for a log to move; a row another process logs meanwhile stays logged, and reads
// count it all the same.
func TestDocFreqLogMovedOncePerProcess(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			a, b := openTwice(t, dialect)
			a.LogDocFreqUnder(2)
			a.FoldDocFreqAt(0)
			b.LogDocFreqUnder(1 << 30)
			ws, srcs := seed(t, a, "https://a.example/feed")
			base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
			want := map[[2]int64]int64{}
			logRows := func() int {
				return count(t, a, `SELECT COUNT(*) FROM story_doc_freq_log WHERE workspace_id = ?`, ws.ID)
			}
			save := func(s *store.Store, i int) *model.StoryDocFreq {
				t.Helper()
				read, _ := saveArticle(t, s, ws.ID, srcs[0].ID, base, i, []uint32{7}, want)
				return read
			}
			for i := range 3 {
				save(a, i)
			}
			if logRows() != 0 {
				t.Fatalf("%d logged rows after the save that moves them", logRows())
			}
			save(b, 3)
			if read := save(a, 4); logRows() != 1 || read.Docs != 4 || read.Terms[7] != 4 {
				t.Errorf("after another process logged: %d logged rows, a save read %d articles and term 7 in %d; want 1, 4 and 4",
					logRows(), read.Docs, read.Terms[7])
			}
			if got := freqEntries(t, a, ws.ID); !maps.Equal(got, want) {
				t.Errorf("entries %v, want %v", got, want)
			}
		})
	}
}

// TestDocFreqLogFoldedInBatches: past the log's bound a process's saves
// go on logging their features' counts until they have logged the
// fold's bound, and the next save moves the log, its own counts with it.
// Reads and entries add up to what the saves committed all along, and
// on SQLite the move leaves the story index's version token the save's
// own, so that the copy of the index is not read again from the tables.
func TestDocFreqLogFoldedInBatches(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		s.LogDocFreqUnder(2)
		s.FoldDocFreqAt(5)
		ws, srcs := seed(t, s, "https://a.example/feed")
		base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
		want := map[[2]int64]int64{}
		// Two features a save: term 7 and one of its own.
		for i, logRows := range []int{1, 2, 0, 1, 2, 0, 1, 2, 0} {
			read, f := saveArticle(t, s, ws.ID, srcs[0].ID, base, i, []uint32{7, 100}, want)
			if read.Docs != i || read.Terms[7] != i || (i > 0 && read.Terms[100] != 1) {
				t.Errorf("save %d read %d articles, %v; want %d articles, term 7 in %d and term 100 in one", i, read.Docs, read.Terms, i, i)
			}
			if got := count(t, s, `SELECT COUNT(*) FROM story_doc_freq_log WHERE workspace_id = ?`, ws.ID); got != logRows {
				t.Errorf("after save %d: %d logged rows, want %d", i, got, logRows)
			}
			if got := freqEntries(t, s, ws.ID); !maps.Equal(got, want) {
				t.Errorf("entries after save %d: %v, want %v", i, got, want)
			}
			if token, ok := f.CopyToken(); ok && logRows == 0 {
				if got := int64(count(t, s, `SELECT token FROM story_index_version WHERE workspace_id = ?`, ws.ID)); got != token {
					t.Errorf("save %d moved the log and left the token %d, want its own %d", i, got, token)
				}
			}
		}
	})
}

// TestDocFreqLogMovedByOneSaveAtATime: while a save of a process moves a
// big workspace's log, the process's other saves of the workspace log
// their counts instead of moving the log too, which would have them wait
// for the first's locks on the logged rows and then find nothing left.
// PostgreSQL's saves run at once (SQLite's one after the other).
func TestDocFreqLogMovedByOneSaveAtATime(t *testing.T) {
	waited, logged := saveDuringAMove(t, 5)
	if waited {
		t.Error("a second save waited for the first's move of the log")
	}
	if logged != 1 {
		t.Errorf("%d logged rows after the move, want the second save's one", logged)
	}
}

// TestDocFreqLogNotFoldedMovesEverySave: without folding (docFreqFoldAt
// 0) a big workspace's saves do not log, also while another save of the
// process moves the log: the second moves too, once the first commits.
func TestDocFreqLogNotFoldedMovesEverySave(t *testing.T) {
	if _, logged := saveDuringAMove(t, 0); logged != 0 {
		t.Errorf("%d logged rows after two saves that do not fold, want none", logged)
	}
}

// saveDuringAMove logs two saves of a small workspace on PostgreSQL
// (fewer than 2 articles), then has a third save move the log, folding at
// foldAt counts, and a fourth add its counts before the third commits. It
// reports whether the fourth waited for the third, and how many rows are
// logged once both committed, and checks the entries.
func saveDuringAMove(t *testing.T, foldAt int) (waited bool, logged int) {
	t.Helper()
	s := testdb.Store(t, store.Postgres)
	s.LogDocFreqUnder(2)
	s.FoldDocFreqAt(foldAt)
	ctx := context.Background()
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	want := map[[2]int64]int64{}
	begin := func(i int) (*store.FreqSave, []model.StoryDocCount) {
		t.Helper()
		counts := []model.StoryDocCount{{Period: base, Term: 0, Docs: 1}, {Period: base, Term: 7, Docs: 1},
			{Period: base, Term: uint32(100 + i), Docs: 1}}
		f, err := s.BeginFreqSave(ctx, ws.ID, srcs[i%2].ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Read(ctx, []uint32{7}, since); err != nil {
			t.Fatal(err)
		}
		return f, counts
	}
	for i := range 2 { // logged: the workspace is small
		saveArticle(t, s, ws.ID, srcs[i%2].ID, base, i, []uint32{7}, want)
	}
	mover, moverCounts := begin(2)
	if err := mover.Add(ctx, moverCounts); err != nil {
		t.Fatal(err)
	}
	// The mover holds the logged rows it deleted, and the rows it added
	// to, until it commits.
	other, otherCounts := begin(3)
	added := make(chan error, 1)
	go func() { added <- other.Add(ctx, otherCounts) }()
	for done := false; !done; {
		select {
		case err := <-added:
			if err != nil {
				t.Fatal(err)
			}
			done = true
		default:
			if !waited && count(t, s, `SELECT COUNT(*) FROM pg_locks WHERE NOT granted`) > 0 {
				waited = true
				if err := mover.Commit(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if !waited {
		if err := mover.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Commit(); err != nil {
		t.Fatal(err)
	}
	addCounts(want, moverCounts)
	addCounts(want, otherCounts)
	if got := freqEntries(t, s, ws.ID); !maps.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	return waited, count(t, s, `SELECT COUNT(*) FROM story_doc_freq_log WHERE workspace_id = ?`, ws.ID)
}
