package store_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestDocFreqCopyReadsAnotherProcessesSaves: two processes save into one
// database (a SQLite file, or PostgreSQL as two replicas). Each keeps a
// copy of the document frequencies; a save of one after a save of the
// other counts the other's article, and the other way round.
func TestDocFreqCopyReadsAnotherProcessesSaves(t *testing.T) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		t.Run(dialect, func(t *testing.T) {
			a, b := openTwice(t, dialect)
			a.CopyStoryIndexFrom(0)
			b.CopyStoryIndexFrom(0)
			t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
			ws, srcs := seed(t, a, "https://a.example/feed", "https://b.example/feed")
			bodies := []string{wire, otherQuake, other, ownReport, wire, otherQuake}
			for i, s := range []*store.Store{a, b, a, b, b, a} {
				art := storyArticle(fmt.Sprintf("https://x.example/%d", i), fmt.Sprintf("Report %d", i), bodies[i], t0.Add(time.Duration(i)*time.Minute), false)
				read := &docsReader{inner: placer(t, []model.NewArticle{art}), at: t0}
				savePoll(t, s, ws, srcs[i%2], read, art)
				if read.docs != i {
					t.Errorf("save %d (process %v) read an article count of %d, want %d: every article saved before it", i, s == b, read.docs, i)
				}
			}
		})
	}
}

// TestDocFreqCopyForgetsPrunedWeeks: once the weeks before the window
// are pruned, a save that reads back into them (an article reported long
// ago) no longer counts their articles, as the table does not.
func TestDocFreqCopyForgetsPrunedWeeks(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		s.CopyStoryIndexFrom(0)
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

// TestStoryCopyDecidesAsTheTables: the same polls saved into two
// stores, one whose saves read the story index from the process's copy
// (SQLite; on PostgreSQL the copy of the document frequencies) and one
// whose saves read the tables, place every article in the same story for
// the same reason, and leave the same stories, merges and index. The polls carry the labelled story set (each event reported
// several times, apart, so that stories grow, merge and are
// re-examined) among generated articles, over three weeks, with the
// index pruned as the daemon prunes it.
func TestStoryCopyDecidesAsTheTables(t *testing.T) {
	set, err := storyfeeds.Load("../analysis/stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	synth := storyfeeds.NewSynth(set, 3)
	rng := rand.New(rand.NewPCG(5, 8))
	var polls []copyPoll
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	order := rng.Perm(len(set))
	n := 0
	for day := range 21 {
		for range 4 {
			var arts []model.NewArticle
			same := rng.IntN(5) == 0 // a poll of articles reported at one time: entries tie
			var at time.Time
			for range 1 + rng.IntN(12) {
				if !same || at.IsZero() {
					at = t0.Add(time.Duration(day)*24*time.Hour + time.Duration(rng.IntN(24*60))*time.Minute)
				}
				if rng.IntN(8) == 0 {
					// Reported days ago: its save reads the index back
					// into what may have been pruned.
					at = at.Add(-time.Duration(5+rng.IntN(6)) * 24 * time.Hour)
				}
				title, body := synth.Article()
				if len(order) > 0 && rng.IntN(2) == 0 {
					a := set[order[0]]
					order = order[1:]
					title, body = a.Title, a.Markdown
				}
				arts = append(arts, storyArticle(fmt.Sprintf("https://x.example/%d", n), title, body, at, false))
				n++
			}
			p := copyPoll{src: rng.IntN(3), arts: arts}
			if rng.IntN(3) == 0 {
				// Bent options: loose joins and merges, late joins, which
				// later saves' re-examination undoes in part.
				p.opts = stories.GroupOptions{Threshold: 0.08, MergeThreshold: 0.12, LateJoins: true}
			}
			polls = append(polls, p)
		}
	}
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		t.Run(dialect, func(t *testing.T) { decideAsTheTables(t, dialect, polls, t0, n) })
	}
}

// copyPoll is a poll of TestStoryCopyDecidesAsTheTables: its source,
// articles and grouping options.
type copyPoll struct {
	src  int
	arts []model.NewArticle
	opts stories.GroupOptions
}

// decideAsTheTables is TestStoryCopyDecidesAsTheTables on one database.
func decideAsTheTables(t *testing.T, dialect string, polls []copyPoll, t0 time.Time, n int) {
	// copyFrom < 0: no copy; else the copy from that many articles on.
	run := func(copyFrom int) *store.Store {
		s := testdb.Store(t, dialect)
		if copyFrom < 0 {
			s.WithoutStoryCopies()
		} else {
			s.CopyStoryIndexFrom(copyFrom)
		}
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed", "https://c.example/feed")
		for i, p := range polls {
			savePoll(t, s, ws, srcs[p.src], placerWith(t, p.arts, p.opts), p.arts...)
			if i%16 == 15 { // every four days, the prune of a week ago
				now := p.arts[0].Story.ReportedAt
				if _, err := s.PruneStoryTerms(context.Background(), now.Add(-7*24*time.Hour), now.Add(-10*24*time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s
	}
	withTables := run(-1)
	// Copied from the start, and from the 150th article on (the saves
	// before it read the tables, as a small workspace's do).
	withCopy, copiedLater := run(0), run(150)
	// Never copied: every save reads the entries its placement asks for
	// once, from the table, and answers from them (as small workspaces).
	neverCopied := run(1 << 30)
	for _, q := range []string{
		`SELECT external_url || ' ' || story_id || ' ' || COALESCE(story_reason, '') FROM feed_articles ORDER BY id`,
		`SELECT id || ' ' || article_count || ' ' || COALESCE(merged_into, 0) || ' ' || revision || ' ' || ` +
			map[string]string{store.SQLite: `hex(COALESCE(centroid, ''))`, store.Postgres: `COALESCE(encode(centroid, 'hex'), '')`}[dialect] + ` FROM stories ORDER BY id`,
		`SELECT term || ' ' || reported_unix || ' ' || feed_article_id || ' ' || story_id FROM story_term_entries ORDER BY 1`,
		// (Not the saves' random tokens.)
		`SELECT period || ' ' || term || ' ' || shard || ' ' || docs FROM story_doc_freq WHERE term <> 1073741823 ORDER BY 1`,
	} {
		var b []string
		if err := withTables.DB().Select(&b, q); err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]*store.Store{"the copy": withCopy, "the copy made later": copiedLater,
			"the entries read once a save": neverCopied} {
			var a []string
			if err := s.DB().Select(&a, q); err != nil {
				t.Fatal(err)
			}
			if len(a) != len(b) {
				t.Fatalf("%s: %d rows with %s, %d reading the tables", q, len(a), name, len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("%s: row %d is %q with %s, %q reading the tables", q, i, a[i], name, b[i])
				}
			}
		}
	}
	if dialect == store.Postgres {
		for name, s := range map[string]*store.Store{"the copy": withCopy, "the copy made later": copiedLater} {
			if answered, _ := s.FreqCopyReads(); answered == 0 {
				t.Errorf("%s: no read of the document frequencies was answered from the copy", name)
			}
		}
		return
	}
	if !withCopy.HasStoryIndexCopy(1) || !copiedLater.HasStoryIndexCopy(1) {
		t.Fatal("the stores meant to read a copy kept none")
	}
	if neverCopied.HasStoryIndexCopy(1) {
		t.Fatal("the store meant to keep no copy kept one")
	}
	// And the reads themselves: every term, from several times on, as
	// many entries per term as a decision or re-examination asks.
	var terms []uint32
	if err := withCopy.DB().Select(&terms, `SELECT DISTINCT term FROM story_term_entries ORDER BY term`); err != nil {
		t.Fatal(err)
	}
	for _, since := range []time.Time{t0, t0.Add(7 * 24 * time.Hour), t0.Add(15 * 24 * time.Hour)} {
		for _, perTerm := range []int{1, 4, 16} {
			q := model.StoryTermQuery{WorkspaceID: 1, Terms: terms, Since: since, PerTerm: perTerm}
			want := readPostings(t, withCopy, q, false)
			for name, got := range map[string][]model.StoryPosting{"the copy": readPostings(t, withCopy, q, true),
				"the entries read once": readPostings(t, neverCopied, q, true)} {
				if len(got) != len(want) {
					t.Fatalf("since %s, %d per term: %d entries from %s, %d from the table", since, perTerm, len(got), name, len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("since %s, %d per term: entry %d is %+v from %s, %+v from the table", since, perTerm, i, got[i], name, want[i])
					}
				}
			}
		}
	}
	var merged, moved int
	if err := withCopy.DB().Get(&merged, `SELECT COUNT(*) FROM stories WHERE merged_into IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if err := withCopy.DB().Get(&moved, `SELECT COUNT(*) FROM feed_articles WHERE story_reason LIKE '%moved%' OR story_reason LIKE '%late%'`); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d articles in %d polls; %d stories merged, %d articles moved or joined late", n, len(polls), merged, moved)
}

// readPostings reads the term index as a save does, from the copy
// (fromCopy) or from the table, in the order of term, time and article.
func readPostings(t *testing.T, s *store.Store, q model.StoryTermQuery, fromCopy bool) []model.StoryPosting {
	t.Helper()
	tx, err := s.DB().Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Commit() }()
	ps, err := s.ReadPostings(context.Background(), tx, q, fromCopy)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ps, func(a, b model.StoryPosting) int {
		if c := cmp.Compare(a.Term, b.Term); c != 0 {
			return c
		}
		if c := a.ReportedAt.Compare(b.ReportedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ArticleID, b.ArticleID)
	})
	return ps
}

// TestStoryCopyOnlyForBigWorkspaces: a workspace gets a copy of its story
// index once the article count its save reads first reaches the
// threshold; a smaller one's saves read the tables, and the store keeps
// nothing of it.
func TestStoryCopyOnlyForBigWorkspaces(t *testing.T) {
	s := testdb.Store(t, store.SQLite)
	s.CopyStoryIndexFrom(3)
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seed(t, s, "https://a.example/feed")
	small, smallSrcs := seedNamed(t, s, "small", "https://b.example/feed")
	bodies := []string{wire, otherQuake, other, ownReport}
	for i, body := range bodies {
		art := storyArticle(fmt.Sprintf("https://a.example/%d", i), fmt.Sprintf("Report %d", i), body, t0.Add(time.Duration(i)*time.Minute), false)
		savePoll(t, s, ws, srcs[0], placer(t, []model.NewArticle{art}), art)
		// The save of article i read a count of i.
		if got, want := s.HasStoryIndexCopy(ws.ID), i >= 3; got != want {
			t.Errorf("after the save of article %d, a copy: %v, want %v", i, got, want)
		}
	}
	art := storyArticle("https://b.example/0", "Report", wire, t0, false)
	savePoll(t, s, small, smallSrcs[0], placer(t, []model.NewArticle{art}), art)
	if s.HasStoryIndexCopy(small.ID) {
		t.Error("a workspace of one article got a copy")
	}
}

// TestStoryIndexByTimeMigrationKeepsEntries: migrations 0027 and 0029
// rebuild SQLite's term index and document frequencies, 0027 in another
// key order, 0029 a row per article; they keep every entry and count,
// and the copy of the story index reads them back as the tables hold
// them. The index is filed as the saves before 0029 filed it, a row per
// entry: some articles at one second, terms of 2^31 and above.
func TestStoryIndexByTimeMigrationKeepsEntries(t *testing.T) {
	ctx := context.Background()
	s := migrateTo(t, store.SQLite, 27)
	s.WithoutStoryCopies() // the schema before 0027 has no version table
	ws, srcs := seed(t, s, "https://a.example/feed")
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	arts := quakeReports(6, func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }, false)
	for i := range arts {
		arts[i].Story = nil // filed below, as before 0029
	}
	savePoll(t, s, ws, srcs[0], nil, arts...)
	var ids []int64
	if err := s.DB().Select(&ids, `SELECT id FROM feed_articles ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	periods := map[int64]bool{}
	for i, id := range ids {
		at := t0.Add(time.Duration(i/2) * 24 * time.Hour) // two articles a second, three weeks
		periods[model.StoryPeriod(at)] = true
		for k, term := range []int64{int64(100 + i%3), int64(200 + i%2), 3_000_000_000 + int64(i%2), 7} {
			if _, err := s.DB().Exec(`INSERT INTO story_terms (workspace_id, term, reported_unix, feed_article_id, story_id) VALUES (?, ?, ?, ?, ?)`,
				ws.ID, term, at.Unix(), id, 1000+int64(i/3)); err != nil {
				t.Fatalf("entry %d of article %d: %v", k, id, err)
			}
			if _, err := s.DB().Exec(`INSERT INTO story_doc_freq (workspace_id, term, period, shard, docs) VALUES (?, ?, ?, 0, 1)
				ON CONFLICT (workspace_id, term, period, shard) DO UPDATE SET docs = docs + 1`, ws.ID, term, model.StoryPeriod(at)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.DB().Exec(`INSERT INTO story_doc_freq (workspace_id, term, period, shard, docs) VALUES (?, 0, ?, 0, 1)
			ON CONFLICT (workspace_id, term, period, shard) DO UPDATE SET docs = docs + 1`, ws.ID, model.StoryPeriod(at)); err != nil {
			t.Fatal(err)
		}
	}
	if len(periods) < 2 {
		t.Fatal("the index covers one week only")
	}
	entries := func() string {
		table := "story_terms"
		if count(t, s, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'story_term_entries'`) == 1 {
			table = "story_term_entries"
		}
		return text(t, s, `SELECT COALESCE(group_concat(e, ','), '') FROM (SELECT workspace_id || ':' || term || ':' || reported_unix || ':' ||
			feed_article_id || ':' || story_id AS e FROM `+table+` ORDER BY workspace_id, term, reported_unix, feed_article_id)`)
	}
	freqs := func() string {
		return text(t, s, `SELECT COALESCE(group_concat(e, ','), '') FROM (SELECT workspace_id || ':' || term || ':' || period || ':' ||
			shard || ':' || docs AS e FROM story_doc_freq ORDER BY workspace_id, term, period, shard)`)
	}
	migrateKeepingIndex(t, ctx, s, entries, freqs, true)
	if n := count(t, s, `SELECT COUNT(*) FROM story_terms`); n != len(ids) {
		t.Errorf("%d term index rows after the migrations, want one per article (%d)", n, len(ids))
	}
	s.WithStoryCopies()
	s.CopyStoryIndexFrom(0)
	var terms []uint32
	if err := s.DB().Select(&terms, `SELECT DISTINCT term FROM story_term_entries ORDER BY term`); err != nil {
		t.Fatal(err)
	}
	q := model.StoryTermQuery{WorkspaceID: ws.ID, Terms: terms, Since: t0.Add(-time.Hour), PerTerm: 16}
	if got, want := readPostings(t, s, q, true), readPostings(t, s, q, false); fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 4*len(ids) {
		t.Errorf("the copy reads the migrated term index as\n%v\nthe table holds\n%v", got, want)
	}
	tx, err := s.DB().Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	got, err := s.ReadDocFreqAsSave(ctx, tx, ws.ID, terms, t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.ReadDocFreq(ctx, tx, ws.ID, terms, t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got.Docs != len(ids) || got.Docs != want.Docs || fmt.Sprint(got.Terms) != fmt.Sprint(want.Terms) {
		t.Errorf("the copy reads the migrated frequencies as %d articles, %v; the table holds %d, %v", got.Docs, got.Terms, want.Docs, want.Terms)
	}
}
