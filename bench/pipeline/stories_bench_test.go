package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/bench/internal/proc"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// newSynthNews writes articles from the labelled story set's vocabulary,
// as the stories package's own benchmark does.
func newSynthNews(tb testing.TB, seed uint64) *storyfeeds.Synth {
	set, err := storyfeeds.Load("../../analysis/stories/testdata/storyset.json")
	if err != nil {
		tb.Fatal(err)
	}
	return storyfeeds.NewSynth(set, seed)
}

// storyDB is a benchmark database with workspace 1 and its source 1.
func storyDB(tb testing.TB, dialect string) *benchDB {
	tb.Helper()
	d := openDB(tb, dialect)
	if dialect == store.Postgres {
		// Planning is part of what a statement costs the server.
		d.exec(tb, `ALTER SYSTEM SET pg_stat_statements.track_planning = on /* bench-setup */`)
		d.exec(tb, `SELECT pg_reload_conf() /* bench-setup */`)
	}
	if _, err := d.store.CreateWorkspace(context.Background(), "stories", model.RelevanceProfile{}); err != nil {
		tb.Fatal(err)
	}
	if err := d.store.CreateSource(context.Background(), &model.FeedSource{WorkspaceID: 1, URL: "https://news.test/feed",
		SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}); err != nil {
		tb.Fatal(err)
	}
	return d
}

// textSource writes articles.
type textSource interface{ Article() (title, body string) }

// setTexts writes the labelled story set's articles of one kind, in
// order.
type setTexts struct{ arts []storyfeeds.Article }

func (s *setTexts) Article() (string, string) {
	a := s.arts[0]
	s.arts = s.arts[1:]
	return a.Title, a.Markdown
}

// fixedText writes one article, again and again.
type fixedText struct{ title, body string }

func (f fixedText) Article() (string, string) { return f.title, f.body }

// unrelated are news of nothing the archive or the other polls report,
// by the size of the poll that carries one.
var unrelated = map[int]fixedText{
	2: {"Library bake sale raises money for new children's books", `The Willowbrook public library held its spring bake sale on Saturday, selling lemon tarts, oat cookies and rhubarb crumble baked by volunteers from the reading club.

Librarian Martha Quill said the stall raised enough to buy about forty picture books and a second beanbag for the story corner, and thanked the scouts who carried tables from the parish hall.`},
	20: {"Teenager wins Dunmore chess open on tie-break", `Fifteen-year-old Priya Okonkwo won the Dunmore chess open on Sunday, edging two veteran masters on tie-break after a tense final round in the town's Corn Exchange.

Organiser Declan Fitzgerald said a record 212 players entered, and the junior section will double in size next year after a donation from a local bakery.`},
}

// nThen writes n articles of first, then those of then.
type nThen struct {
	first, then textSource
	n           int
}

func (o *nThen) Article() (string, string) {
	if o.n > 0 {
		o.n--
		return o.first.Article()
	}
	return o.then.Article()
}

func storySetKinds(tb testing.TB, original bool) *setTexts {
	set, err := storyfeeds.Load("../../analysis/stories/testdata/storyset.json")
	if err != nil {
		tb.Fatal(err)
	}
	out := &setTexts{}
	for _, a := range set {
		if (a.Kind == "original") == original {
			out.arts = append(out.arts, a)
		}
	}
	return out
}

// storyPoll is a poll of source 1 saving articles first..first+n-1 from
// gen, article i reported at(i), placed in stories as the daemon places
// them (placed false: no placement, every article a story of its own).
func storyPoll(tb testing.TB, d *benchDB, gen textSource, first, n int, at func(i int) time.Time, placed bool) model.PollSave {
	tb.Helper()
	d.exec(tb, `UPDATE feed_sources SET lease_owner = 'bench', lease_until = ? WHERE id = 1 /* bench-setup */`,
		time.Now().Add(time.Hour).UTC())
	now := time.Now().UTC()
	p := model.PollSave{WorkspaceID: 1, SourceID: 1, Owner: "bench",
		Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: now.Add(time.Hour)},
		Run:    model.PollRun{StartedAt: now, Outcome: model.StatusOK}}
	arrivals := make([]stories.Arrival, 0, n)
	for i := first; i < first+n; i++ {
		title, body := gen.Article()
		t := at(i)
		p.Articles = append(p.Articles, model.NewArticle{
			Article: model.FeedArticle{ExternalURL: fmt.Sprintf("https://news.test/%d", i), Title: title,
				ContentMarkdown: body, ContentTextHash: fmt.Sprintf("%032x", i), PublishedAt: &t},
			Story: &model.StoryFacts{ReportedAt: t}})
		arrivals = append(arrivals, stories.Arrival{Profile: stories.NewProfile(title, body), At: t})
	}
	if placed {
		pl, err := stories.NewPlacer(arrivals, stories.GroupOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		p.Stories = pl
	}
	return p
}

// growArchive stores articles from..n-1 of workspace 1 through SavePoll,
// placed in stories, article i reported i×every after first, a thousand
// per poll: oldest first, as a workspace fills, so that the members a
// measured poll re-examines were placed as such articles are, in an
// archive that had counted nearly what it counts now.
func growArchive(b *testing.B, d *benchDB, gen *storyfeeds.Synth, from, n int, first time.Time, every time.Duration) {
	b.Helper()
	for start := from; start < n; start += 1000 {
		p := storyPoll(b, d, gen, start, min(1000, n-start), func(i int) time.Time { return first.Add(time.Duration(i) * every) }, true)
		if _, err := d.store.SavePoll(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	if d.dialect == store.Postgres {
		d.exec(b, `ANALYZE /* bench-setup */`)
	}
}

// BenchmarkStoryPlacement is a poll's save of 1 or 20 new articles into a
// workspace of 1 000, 10 000 and 100 000 articles (grown in one run, oldest first, 1 000
// a day; the 7-day window holds 7 000 of them), with the placement the
// daemon runs (stories=terms: document frequencies, the term index, the
// candidate stories' centroids and revisions, the writes) and without any
// (stories=none), side by side: the difference is what placement costs.
// cpu-ms/article is this process's CPU (user + system) per new article,
// profiling the articles included. On PostgreSQL, server-cpu-ms/article
// is the server's CPU per new article (the postmaster and its backends,
// from /proc, in clock ticks of 10 ms: coarse for polls of one article),
// server-ms/article the time it spent planning and executing the poll's
// statements, which on a loaded machine includes waiting for a CPU, and
// stmts/op its statements per poll (both from pg_stat_statements).
//
//	go test -run XXX -bench StoryPlacement -benchtime 40x ./bench/pipeline/
func BenchmarkStoryPlacement(b *testing.B) {
	first := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	every := 24 * time.Hour / 1000
	for _, dialect := range benchDialects() {
		d := storyDB(b, dialect)
		gen := newSynthNews(b, 1)
		qgen := newSynthNews(b, 99)
		held, next := 0, 1_000_000
		for _, n := range benchSizes() {
			growArchive(b, d, gen, held, n, first, every)
			end := first.Add(time.Duration(n) * every) // just after the newest
			held = n
			logStoryBytes(b, d, n)
			runtime.GC()
			for _, k := range []int{1, 20} {
				for _, placed := range []bool{true, false} {
					name := map[bool]string{true: "terms", false: "none"}[placed]
					b.Run(fmt.Sprintf("%s/articles=%d/new=%d/stories=%s", dialect, n, k, name), func(b *testing.B) {
						var cpu time.Duration
						st0, srv0, cpu0 := d.statements(b), d.serverWork(b), d.serverCPU(b)
						byStatement := d.statementTimes(b)
						for b.Loop() {
							p := storyPoll(b, d, qgen, next, k, func(int) time.Time { return end }, placed)
							next += k
							c0 := cpuTime()
							if _, err := d.store.SavePoll(context.Background(), p); err != nil {
								b.Fatal(err)
							}
							cpu += cpuTime() - c0
						}
						b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*k), "cpu-ms/article")
						if d.dialect == store.Postgres {
							b.ReportMetric(float64(d.statements(b)-st0)/float64(b.N), "stmts/op")
							b.ReportMetric((d.serverWork(b)-srv0)/float64(b.N*k), "server-ms/article")
							b.ReportMetric(float64((d.serverCPU(b)-cpu0).Microseconds())/1000/float64(b.N*k), "server-cpu-ms/article")
							d.logTopStatements(b, byStatement, b.N*k)
						}
					})
				}
			}
		}
	}
}

// logStoryBytes logs what the placement's tables take per archived
// article: table and indexes (PostgreSQL: pg_total_relation_size; SQLite:
// the pages dbstat counts under the table and its indexes).
func logStoryBytes(b *testing.B, d *benchDB, articles int) {
	b.Helper()
	q := `SELECT pg_total_relation_size(CAST($1 AS regclass)) /* bench-setup */`
	if d.dialect == store.SQLite {
		q = `SELECT COALESCE(SUM(s.pgsize), 0) FROM dbstat s JOIN sqlite_schema m ON m.name = s.name WHERE m.tbl_name = ?`
	}
	var line strings.Builder
	for _, table := range []string{"story_terms", "story_doc_freq", "stories"} {
		var bytes int64
		if err := d.direct.QueryRow(q, table).Scan(&bytes); err != nil && d.dialect == store.Postgres {
			b.Fatalf("size of %s: %v", table, err)
		} else if err != nil {
			b.Logf("size of %s: %v", table, err)
		}
		fmt.Fprintf(&line, " %s %.0f B/article;", table, float64(bytes)/float64(articles))
	}
	b.Logf("%s, %d articles:%s", d.dialect, articles, line.String())
}

// serverWork is the milliseconds PostgreSQL has spent planning and
// executing the benchmark database's statements (0 on SQLite).
func (d *benchDB) serverWork(tb testing.TB) float64 {
	tb.Helper()
	if d.dialect != store.Postgres {
		return 0
	}
	return d.statStatements(tb, "total_exec_time + total_plan_time")
}

// serverCPU is the CPU the PostgreSQL server has used, backends
// included (0 on SQLite).
func (d *benchDB) serverCPU(tb testing.TB) time.Duration {
	tb.Helper()
	if d.dialect != store.Postgres {
		return 0
	}
	c, err := proc.TreeCPU(cluster.PID())
	if err != nil {
		tb.Fatalf("server CPU: %v", err)
	}
	return c
}

// statementTimes is each statement's planning and execution time so far
// (ms, by query id), for logTopStatements; nil unless
// STORYBENCH_STATEMENTS asks for them.
func (d *benchDB) statementTimes(tb testing.TB) map[int64]float64 {
	tb.Helper()
	if d.dialect != store.Postgres || os.Getenv("STORYBENCH_STATEMENTS") == "" {
		return nil
	}
	rows, err := d.direct.Query(`SELECT queryid, total_exec_time + total_plan_time FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`)
	if err != nil {
		tb.Fatalf("read pg_stat_statements: %v", err)
	}
	defer rows.Close()
	out := map[int64]float64{}
	for rows.Next() {
		var id int64
		var ms float64
		if err := rows.Scan(&id, &ms); err != nil {
			tb.Fatalf("read pg_stat_statements: %v", err)
		}
		out[id] = ms
	}
	return out
}

// logTopStatements logs the STORYBENCH_STATEMENTS statements that took
// the most server time since before (statementTimes), per article: where
// the server's share of a placement goes.
func (d *benchDB) logTopStatements(tb testing.TB, before map[int64]float64, articles int) {
	tb.Helper()
	n, _ := strconv.Atoi(os.Getenv("STORYBENCH_STATEMENTS"))
	if before == nil || n <= 0 {
		return
	}
	rows, err := d.direct.Query(`SELECT queryid, total_exec_time + total_plan_time, calls, left(regexp_replace(query, '\s+', ' ', 'g'), 140)
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%bench-setup%'`)
	if err != nil {
		tb.Fatalf("read pg_stat_statements: %v", err)
	}
	defer rows.Close()
	type stmt struct {
		ms    float64
		calls int64
		query string
	}
	var all []stmt
	for rows.Next() {
		var id int64
		var s stmt
		if err := rows.Scan(&id, &s.ms, &s.calls, &s.query); err != nil {
			tb.Fatalf("read pg_stat_statements: %v", err)
		}
		if s.ms -= before[id]; s.ms > 0 {
			all = append(all, s)
		}
	}
	slices.SortFunc(all, func(a, b stmt) int { return cmp.Compare(b.ms, a.ms) })
	for _, s := range all[:min(n, len(all))] {
		tb.Logf("%8.3f ms/article  %s", s.ms/float64(articles), s.query)
	}
}

// benchDialects and benchSizes narrow BenchmarkStoryPlacement when
// STORYBENCH_DIALECT and STORYBENCH_MAX are set.
func benchDialects() []string {
	if d := os.Getenv("STORYBENCH_DIALECT"); d != "" {
		return []string{d}
	}
	return []string{store.SQLite, store.Postgres}
}

func benchSizes() []int {
	var out []int
	limit, _ := strconv.Atoi(os.Getenv("STORYBENCH_MAX"))
	for _, n := range []int{1000, 10000, 100000} {
		if limit == 0 || n <= limit {
			out = append(out, n)
		}
	}
	return out
}

// TestStoryPlacementStatements: a poll's save runs as many statements
// whatever the number of its new articles, placement included: two new
// articles (one joining an archived story, one starting a story) and
// twenty (reports of archived events joining their stories, one starting
// a story) cost the same, but for the reads re-examination skips (the
// term index and the stories when the decision read all they would ask,
// the members' frequencies when every member it looks at is weighed with
// the IDFs it kept), and one new article no more, on PostgreSQL
// (pg_stat_statements counts them). Here the poll of 20 grows the
// archive of 40 by more than half, so it reads its members' frequencies
// and the others do not.
func TestStoryPlacementStatements(t *testing.T) {
	d := storyDB(t, store.Postgres)
	end := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return end.Add(-time.Duration(i) * time.Minute) }
	// The story set's original reports as the archive; its other
	// versions of them as the new articles.
	originals := storySetKinds(t, true)
	n := len(originals.arts)
	if _, err := d.store.SavePoll(context.Background(), storyPoll(t, d, originals, 0, n, at, true)); err != nil {
		t.Fatal(err)
	}
	others := storySetKinds(t, false)
	stmts := map[int]int64{}
	for _, k := range []int{1, 2, 20} {
		var texts textSource = others
		if k > 1 {
			texts = &nThen{first: others, n: k - 1, then: unrelated[k]}
		}
		p := storyPoll(t, d, texts, 1000*k, k, func(int) time.Time { return end }, true)
		st0 := d.statements(t)
		c, err := d.store.SavePoll(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		stmts[k] = d.statements(t) - st0
		t.Logf("%d new articles: %d statements, stories %+v", k, stmts[k], c.Stories)
		if c.Stories.Joined == 0 || k > 1 && c.Stories.Started == 0 {
			t.Errorf("%d new articles: stories %+v; want joins (and starts): the poll did not exercise the story writes", k, c.Stories)
		}
	}
	// Re-examination skips its term index and story reads when the
	// decision read all they would ask for, and its frequency read when
	// its members kept fresh IDFs: at most three fewer.
	if stmts[2] > stmts[20] || stmts[2] < stmts[20]-3 || stmts[1] > stmts[2] || stmts[1] == 0 {
		t.Errorf("statements per poll: %d for 1 new article, %d for 2, %d for 20; want 2 as 20 (or up to 3 fewer), 1 no more",
			stmts[1], stmts[2], stmts[20])
	}
}
