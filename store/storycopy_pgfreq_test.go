package store_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// openTwice opens two stores on one new database, as two processes (or
// replicas) of the daemon would.
func openTwice(t *testing.T, dialect string) (*store.Store, *store.Store) {
	t.Helper()
	url := testdb.URL(t, dialect)
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
	return open(), open()
}

// freqRound is a save of document frequencies: a read, then additions.
type freqRound struct {
	since  time.Time
	counts []model.StoryDocCount
}

// randomFreqRound reads from one of 13 weeks after base on and adds up to
// 30 counts in 12 weeks, to terms 1–40 (features' terms are larger, but
// the copies store any) and the article count of each of those weeks.
func randomFreqRound(rng *rand.Rand, base int64) freqRound {
	week := int64(model.StoryPeriodLength / time.Second)
	added := map[[2]int64]int{}
	for range rng.IntN(30) {
		added[[2]int64{base + int64(rng.IntN(12)), int64(rng.IntN(41))}] += 1 + rng.IntN(3)
	}
	for k := range added {
		// A save counts its articles in every week it counts terms in.
		if added[[2]int64{k[0], 0}] == 0 {
			added[[2]int64{k[0], 0}] = 1
		}
	}
	r := freqRound{since: time.Unix((base+int64(rng.IntN(13))-1)*week, 0)}
	for k, n := range added {
		r.counts = append(r.counts, model.StoryDocCount{Period: k[0], Term: uint32(k[1]), Docs: n})
	}
	// In the order a placement counts them (stories.DocCounts).
	slices.SortFunc(r.counts, func(a, b model.StoryDocCount) int {
		return cmp.Or(cmp.Compare(a.Period, b.Period), cmp.Compare(a.Term, b.Term))
	})
	return r
}

// saveConcurrently runs rounds random saves (randomFreqRound, seeded
// with seed) in each of four goroutines at once, into workspace ws from
// srcs: each reads from the time since gives, adds its counts, and rolls
// back one time in five; committed is told of the others (nil: not).
func saveConcurrently(t *testing.T, s *store.Store, ws int64, srcs []*model.FeedSource, base int64, rounds int, seed uint64,
	since func(freqRound) time.Time, committed func(freqRound)) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	save := func(rng *rand.Rand) error {
		r := randomFreqRound(rng, base)
		f, err := s.BeginFreqSave(ctx, ws, srcs[rng.IntN(len(srcs))].ID)
		if err != nil {
			return err
		}
		if _, err := f.Read(ctx, freqTerms, since(r)); err != nil {
			f.Rollback()
			return err
		}
		if err := f.Add(ctx, r.counts); err != nil {
			f.Rollback()
			return err
		}
		if rng.IntN(5) == 0 {
			f.Rollback()
			return nil
		}
		if err := f.Commit(); err != nil {
			return err
		}
		if committed != nil {
			committed(r)
		}
		return nil
	}
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), seed))
			for range rounds {
				if err := save(rng); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// readAgreeing reads the frequencies of freqTerms from since on as f's
// placement does, and from the table in f's transaction, and fails the
// test (saying what was read) unless they agree.
func readAgreeing(t *testing.T, f *store.FreqSave, since time.Time, what string) {
	t.Helper()
	ctx := context.Background()
	got, err := f.Read(ctx, freqTerms, since)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.ReadTable(ctx, freqTerms, since)
	if err != nil {
		t.Fatal(err)
	}
	if got.Docs != want.Docs || fmt.Sprint(got.Terms) != fmt.Sprint(want.Terms) {
		t.Fatalf("%s: a save read %d articles, %v; the table holds %d, %v", what, got.Docs, got.Terms, want.Docs, want.Terms)
	}
}

// commitFreqSave is a save of source src of workspace ws that reads from
// since on (readAgreeing), adds counts and commits.
func commitFreqSave(t *testing.T, s *store.Store, ws, src int64, since time.Time, counts []model.StoryDocCount, what string) {
	t.Helper()
	if err := addingFreqSave(t, s, ws, src, since, counts, what).Commit(); err != nil {
		t.Fatal(err)
	}
}

// addingFreqSave begins a save of source src of workspace ws that reads
// from since on (readAgreeing) and adds counts, and leaves it open.
func addingFreqSave(t *testing.T, s *store.Store, ws, src int64, since time.Time, counts []model.StoryDocCount, what string) *store.FreqSave {
	t.Helper()
	ctx := context.Background()
	f, err := s.BeginFreqSave(ctx, ws, src)
	if err != nil {
		t.Fatal(err)
	}
	readAgreeing(t, f, since, what)
	if err := f.Add(ctx, counts); err != nil {
		f.Rollback()
		t.Fatal(err)
	}
	return f
}

var freqTerms = func() []uint32 {
	terms := make([]uint32, 40)
	for i := range terms {
		terms[i] = uint32(i + 1)
	}
	return terms
}()

// TestFreqCopyIsTheTableAcrossProcesses: two processes save into one
// workspace (and another); saves commit or roll back; weeks are pruned.
// Whatever either did last, a save's read of the document frequencies
// in either answers what the table holds, on both databases.
func TestFreqCopyIsTheTableAcrossProcesses(t *testing.T) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		t.Run(dialect, func(t *testing.T) {
			a, b := openTwice(t, dialect)
			a.CopyStoryIndexFrom(0)
			b.CopyStoryIndexFrom(0)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(3, 9))
			ws, srcs := seed(t, a, "https://a.example/feed", "https://b.example/feed")
			other, others := seedNamed(t, a, "other", "https://c.example/feed")
			base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
			week := int64(model.StoryPeriodLength / time.Second)
			reads := 0
			for round := range 120 {
				s := a
				if rng.IntN(5) == 0 {
					s = b // the other process, now and then
				}
				target, source := ws.ID, srcs[rng.IntN(2)].ID
				if round%9 == 4 {
					target, source = other.ID, others[0].ID
				}
				r := randomFreqRound(rng, base)
				f, err := s.BeginFreqSave(ctx, target, source)
				if err != nil {
					t.Fatal(err)
				}
				readAgreeing(t, f, r.since, fmt.Sprintf("round %d (process %v), since week %d", round, s == b, model.StoryPeriod(r.since)-base))
				reads++
				if err := f.Add(ctx, r.counts); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(4) == 0 {
					f.Rollback()
				} else if err := f.Commit(); err != nil {
					t.Fatal(err)
				}
				if round%31 == 30 {
					freqBefore := time.Unix((base+int64(round/31))*week, 0)
					if _, err := s.PruneStoryTerms(ctx, freqBefore, freqBefore); err != nil {
						t.Fatal(err)
					}
				}
			}
			if answered, loaded := a.FreqCopyReads(); dialect == store.Postgres && (answered == 0 || loaded == 0) {
				t.Errorf("process a answered %d of the %d reads from its copy and read it %d times", answered, reads, loaded)
			}
		})
	}
}

// TestFreqCopyAnswersSaves: on PostgreSQL, once a workspace's first save
// has read its document frequencies from the table, the saves after it
// read them from the process's copy; a save of another replica makes the
// next save read the copy again, and it answers again.
func TestFreqCopyAnswersSaves(t *testing.T) {
	a, b := openTwice(t, store.Postgres)
	a.CopyStoryIndexFrom(0)
	rng := rand.New(rand.NewPCG(4, 2))
	ws, srcs := seed(t, a, "https://a.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	save := func(s *store.Store) {
		t.Helper()
		commitFreqSave(t, s, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "a save")
	}
	for range 40 {
		save(a)
	}
	if answered, loaded := a.FreqCopyReads(); answered != 39 || loaded != 1 {
		t.Errorf("40 saves: %d reads answered from the copy, %d reads of it; want 39 and 1 (the first save's)", answered, loaded)
	}
	save(b)
	for range 10 {
		save(a)
	}
	if answered, loaded := a.FreqCopyReads(); answered != 49 || loaded != 2 {
		t.Errorf("after another replica's save and 10 more: %d reads answered from the copy, %d reads of it; want 49 and 2",
			answered, loaded)
	}
}

// TestFreqCopyAnswersEarlierWeeks: on PostgreSQL, saves whose articles
// were reported up to copyEarlierWeeks weeks before those of the save
// that read the copy read from it too, and read what the table holds.
func TestFreqCopyAnswersEarlierWeeks(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	s.CopyStoryIndexFrom(0)
	ws, srcs := seed(t, s, "https://a.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	weekStart := func(p int64) time.Time { return time.Unix(p*int64(model.StoryPeriodLength/time.Second), 0) }
	// Each save counts one article and a term in each of the weeks it
	// reads, the earliest included.
	counts := func(from int64) []model.StoryDocCount {
		var out []model.StoryDocCount
		for p := from; p <= base; p++ {
			out = append(out, model.StoryDocCount{Period: p, Term: 0, Docs: 1},
				model.StoryDocCount{Period: p, Term: uint32(1 + base - p), Docs: 1})
		}
		return out
	}
	commitFreqSave(t, s, ws.ID, srcs[0].ID, weekStart(base-1), counts(base-1), "the save that reads the copy")
	for back := int64(2); back <= 5; back++ {
		commitFreqSave(t, s, ws.ID, srcs[0].ID, weekStart(base-back), counts(base-back),
			fmt.Sprintf("a save from %d weeks back", back))
	}
	if answered, loaded := s.FreqCopyReads(); answered != 4 || loaded != 1 {
		t.Errorf("saves reaching 1 to 4 weeks before the copy's first: %d reads answered from the copy, %d reads of it; "+
			"want 4 and 1", answered, loaded)
	}
}

// TestFreqCopyConcurrentSaves: saves of one workspace on PostgreSQL run
// at once, each reading and adding to the document frequencies; once
// they are done, a save reads from the copy what the table holds, and
// the copy answered reads meanwhile.
func TestFreqCopyConcurrentSaves(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	s.CopyStoryIndexFrom(0)
	ctx := context.Background()
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed", "https://c.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	saveConcurrently(t, s, ws.ID, srcs, base, 40, 17, func(freqRound) time.Time { return since }, nil)
	answeredBefore, _ := s.FreqCopyReads()
	f, err := s.BeginFreqSave(ctx, ws.ID, srcs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Rollback()
	readAgreeing(t, f, since, "after the concurrent saves")
	if answered, _ := s.FreqCopyReads(); answered != answeredBefore+1 || answeredBefore == 0 {
		t.Errorf("reads answered from the copy: %d during the saves, %d after; want some during, and the last one",
			answeredBefore, answered-answeredBefore)
	}
}

// TestSaveCountsFreqReads: a poll's save counts where its placement's
// reads of document frequencies were answered from. On PostgreSQL the
// workspace's first save reads the table and then its copy; the saves
// after it read the copy. SQLite's saves count none (its copy of the
// story index answers them, unchecked).
func TestSaveCountsFreqReads(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		s.CopyStoryIndexFrom(0)
		ws, srcs := seed(t, s, "https://a.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		for i, body := range []string{wire, otherQuake, other, ownReport} {
			art := storyArticle(fmt.Sprintf("https://a.example/%d", i), fmt.Sprintf("Report %d", i), body, t0.Add(time.Duration(i)*time.Minute), false)
			c := savePoll(t, s, ws, srcs[0], placer(t, []model.NewArticle{art}), art)
			got := c.FreqReads
			switch {
			case s.Dialect() == store.SQLite:
				if got != (model.FreqReads{}) {
					t.Errorf("save %d: frequency reads %+v, want none counted", i, got)
				}
			case i == 0:
				if want := (model.FreqReads{FromTable: 1, CopyLoads: 1}); got != want {
					t.Errorf("save %d: frequency reads %+v, want %+v", i, got, want)
				}
			case got.FromCopy == 0 || got.FromTable != 0 || got.CopyLoads != 0:
				// (Re-examination's read of its members' frequencies is
				// a second read from the copy.)
				t.Errorf("save %d: frequency reads %+v, want them all from the copy", i, got)
			}
		}
	})
}

// TestFreqCopyReadsBackOffUnderReplicas: two replicas take turns saving
// into one big workspace, so a copy is current for one check at most.
// Each reads the table, and reads its copy again less and less often:
// after 200 checks, 4 copies at most (a copy every 32 checks would be 7).
func TestFreqCopyReadsBackOffUnderReplicas(t *testing.T) {
	a, b := openTwice(t, store.Postgres)
	a.CopyStoryIndexFrom(0)
	b.CopyStoryIndexFrom(0)
	rng := rand.New(rand.NewPCG(6, 1))
	ws, srcs := seed(t, a, "https://a.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	for i := range 400 {
		s := []*store.Store{a, b}[i%2]
		commitFreqSave(t, s, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, fmt.Sprintf("save %d", i))
	}
	for name, s := range map[string]*store.Store{"a": a, "b": b} {
		if _, loaded := s.FreqCopyReads(); loaded > 4 {
			t.Errorf("replica %s read its copy %d times in 200 saves; want 4 at most", name, loaded)
		}
	}
}

// TestFreqCopyWaitsForTheProcessCommits: a save that checks the copy
// while another save of the process is between its commit and its
// addition to the copy (the table holds it, the copy not yet) waits for
// that commit to end and answers from the copy, where it read the table.
func TestFreqCopyWaitsForTheProcessCommits(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	s.CopyStoryIndexFrom(0)
	s.WaitForCommitsUpTo(time.Hour) // the test ends the commit once the check waits
	rng := rand.New(rand.NewPCG(7, 3))
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	for range 3 { // the first reads the table, then the copy
		commitFreqSave(t, s, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "a save")
	}
	committing := addingFreqSave(t, s, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "the committing save")
	end, err := committing.CommitHeld()
	if err != nil {
		t.Fatal(err)
	}
	readOnceCommitEnds(t, s, ws.ID, srcs[1].ID, since, end)
}

// readOnceCommitEnds has a save of workspace ws's source src read the
// frequencies from since on while a save of the process is between its
// commit and its addition to the copy, and ends that commit (end) once
// the read waits for it. The read must wait, and then answer from the
// copy what the table holds.
func readOnceCommitEnds(t *testing.T, s *store.Store, ws, src int64, since time.Time, end func()) {
	t.Helper()
	ctx := context.Background()
	answeredBefore, _ := s.FreqCopyReads()
	reader, err := s.BeginFreqSave(ctx, ws, src)
	if err != nil {
		end()
		t.Fatal(err)
	}
	defer reader.Rollback()
	read := make(chan error, 1)
	go func() {
		_, err := reader.Read(ctx, freqTerms, since)
		read <- err
	}()
	for waited := false; !waited; {
		select {
		case err := <-read:
			end()
			if err != nil {
				t.Fatal(err)
			}
			t.Fatal("the read answered before the process's commit ended")
		default:
		}
		if waited = s.FreqCopyWaits() > 0; !waited {
			time.Sleep(time.Millisecond) // not to spin beside the read
		}
	}
	end()
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if answered, _ := s.FreqCopyReads(); answered != answeredBefore+1 {
		t.Errorf("%d reads answered from the copy after the commit ended, want 1 (the read went to the table)", answered-answeredBefore)
	}
	readAgreeing(t, reader, since, "after the commit ended")
}

// TestFreqCopyWaitsForCommitsBeganBeforeIt: a save of the process that
// began its commit before the workspace's copy was read, and committed
// after, is in the table and not in the copy until its commit ends; a
// check meanwhile waits for it, as for any commit of the process, and
// answers from the copy.
func TestFreqCopyWaitsForCommitsBeganBeforeIt(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	s.CopyStoryIndexFrom(1 << 30) // no copy yet
	s.WaitForCommitsUpTo(time.Hour)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 5))
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	commitFreqSave(t, s, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "a save")
	committing := addingFreqSave(t, s, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "the committing save")
	commit := committing.BeginCommit()
	// Another save reads the copy from the table, before the commit.
	s.CopyStoryIndexFrom(0)
	loader, err := s.BeginFreqSave(ctx, ws.ID, srcs[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	readAgreeing(t, loader, since, "the save that reads the copy")
	loader.Rollback()
	if _, loaded := s.FreqCopyReads(); loaded != 1 {
		t.Fatalf("the copy was read %d times, want 1", loaded)
	}
	end, err := commit()
	if err != nil {
		t.Fatal(err)
	}
	readOnceCommitEnds(t, s, ws.ID, srcs[1].ID, since, end)
}

// TestFreqCopyAnswersAfterItIsReadAgain: a save that checked the copy
// answers its later reads from it as it was then, also once another
// save of the process has read a new copy (another replica saved).
func TestFreqCopyAnswersAfterItIsReadAgain(t *testing.T) {
	a, b := openTwice(t, store.Postgres)
	a.CopyStoryIndexFrom(0)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 4))
	ws, srcs := seed(t, a, "https://a.example/feed")
	base := model.StoryPeriod(time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
	since := time.Unix((base-1)*int64(model.StoryPeriodLength/time.Second), 0)
	for range 40 { // enough checks for a disagreeing copy to be read again
		commitFreqSave(t, a, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "a save")
	}
	early, err := a.BeginFreqSave(ctx, ws.ID, srcs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback()
	readAgreeing(t, early, since, "the save that checks the copy")
	then, err := early.ReadTable(ctx, freqTerms, since)
	if err != nil {
		t.Fatal(err)
	}
	commitFreqSave(t, b, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "another replica's save")
	commitFreqSave(t, a, ws.ID, srcs[0].ID, since, randomFreqRound(rng, base).counts, "a save that reads a new copy")
	answeredBefore, loaded := a.FreqCopyReads()
	if loaded != 2 {
		t.Fatalf("the copy was read %d times, want 2", loaded)
	}
	got, err := early.Read(ctx, freqTerms, since)
	if err != nil {
		t.Fatal(err)
	}
	if answered, _ := a.FreqCopyReads(); answered != answeredBefore+1 {
		t.Errorf("the early save's second read: %d answered from the copy, want 1", answered-answeredBefore)
	}
	if got.Docs != then.Docs || fmt.Sprint(got.Terms) != fmt.Sprint(then.Terms) {
		t.Errorf("the early save's second read: %d articles, %v; when it checked the copy the table held %d, %v",
			got.Docs, got.Terms, then.Docs, then.Terms)
	}
}
