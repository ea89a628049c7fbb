package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/store"
)

// floor is the least any feed reader must do with a feed's bytes: parse
// them with gofeed and turn every entry's HTML into Markdown with the
// converter's defaults. Nothing else: no HTTP, no URL work, no database.
func floor(body []byte) (int, error) {
	feed, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("parse feed: %w", err)
	}
	n := 0
	for _, it := range feed.Items {
		html := it.Content
		if html == "" {
			html = it.Description
		}
		md, err := htmltomarkdown.ConvertString(html)
		if err != nil {
			return 0, fmt.Errorf("convert item %s: %w", it.Link, err)
		}
		n += len(md)
	}
	return n, nil
}

// BenchmarkFloor is the raw floor for one 20-item farm feed (~2 KB of HTML
// per item), RSS and Atom.
func BenchmarkFloor(b *testing.B) {
	for _, format := range []feedfarm.Format{feedfarm.FormatRSS, feedfarm.FormatAtom} {
		b.Run(format.String(), func(b *testing.B) {
			body := farmFeed(b, format, 20)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if n, err := floor(body); err != nil || n == 0 {
					b.Fatalf("floor: %d bytes of Markdown, %v", n, err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// pollEnv is one workspace with one RSS source pointing at a static copy
// of a farm feed, and a poller like the daemon's (no per-domain gap, one
// attempt, no article-page tier: the farm's items carry enough text).
type pollEnv struct {
	db     *benchDB
	poller *poller.Poller
	ws     *model.Workspace
	src    *model.FeedSource
	items  int
	// unchanged is the fetcher's memory of settled entries, forgotten
	// whenever prepare deletes the articles it settled.
	unchanged *rss.Unchanged
}

func newPollEnv(b testing.TB, dialect string, items int) *pollEnv {
	b.Helper()
	ctx := context.Background()
	db := openDB(b, dialect)
	body := farmFeed(b, feedfarm.FormatRSS, items)
	srv := staticFeed(b, body, "application/rss+xml; charset=utf-8")
	ws, err := db.store.CreateWorkspace(ctx, "bench", benchProfile())
	if err != nil {
		b.Fatal(err)
	}
	src := &model.FeedSource{WorkspaceID: ws.ID, URL: srv.URL + "/feed/0.xml", SourceType: model.SourceRSS,
		IsActive: true, PollingIntervalMinutes: 30}
	if err := db.store.CreateSource(ctx, src); err != nil {
		b.Fatal(err)
	}
	client := fetch.New(fetch.Options{AllowPrivateNetworks: true, Attempts: 1, PerDomainGap: -1,
		PerDomainConcurrency: 64, Timeout: 10 * time.Second})
	// Every poll logs a line at info; the benchmark times the poll, not stderr.
	opts := poller.DefaultOptions()
	opts.Store, opts.Owner, opts.Workers, opts.Jitter = db.store, "bench", 1, -1
	opts.Log = slog.New(slog.DiscardHandler)
	unchanged := rss.NewUnchanged()
	opts.Fetchers = map[string]poller.Fetcher{model.SourceRSS: &rss.Fetcher{Client: client, Unchanged: unchanged}}
	p, err := poller.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	return &pollEnv{db: db, poller: p, ws: ws, src: src, items: items, unchanged: unchanged}
}

// pollKind says what the next poll should find.
type pollKind int

const (
	allNew   pollKind = iota // a changed feed, every item new (first poll)
	oneNew                   // a changed feed, one new item, the rest known
	notModif                 // an unchanged feed: 304
)

func (k pollKind) String() string {
	return [...]string{"changed-all-new", "changed-one-new", "not-modified"}[k]
}

// prepare puts the database in the state in which the next poll finds k,
// through the uncounted connection.
func (e *pollEnv) prepare(b testing.TB, k pollKind) {
	b.Helper()
	if k != notModif {
		e.unchanged.Forget(e.src.ID)
	}
	switch k {
	case allNew:
		e.db.exec(b, `DELETE FROM content_items /* bench-setup */`)
		e.db.exec(b, `DELETE FROM feed_articles /* bench-setup */`)
		e.db.exec(b, `UPDATE feed_sources SET etag = '', last_modified = '' /* bench-setup */`)
	case oneNew:
		e.db.exec(b, `DELETE FROM content_items WHERE feed_article_id = (SELECT max(id) FROM feed_articles) /* bench-setup */`)
		e.db.exec(b, `DELETE FROM feed_articles WHERE id = (SELECT max(id) FROM feed_articles) /* bench-setup */`)
		e.db.exec(b, `UPDATE feed_sources SET etag = '', last_modified = '' /* bench-setup */`)
	case notModif:
		// The previous poll stored the validators: nothing to do.
	}
}

// sample is what one poll cost.
type sample struct {
	cpu        time.Duration
	wall       time.Duration
	stmts      int64
	roundTrips int64
}

// poll runs one poll (PollNow: claim, fetch, pipeline, save) and checks it
// found what k promised, so a benchmark cannot time the wrong path.
func (e *pollEnv) poll(b testing.TB, k pollKind) sample {
	b.Helper()
	st0, rt0 := e.db.statements(b), e.db.roundTrips()
	c0, w0 := cpuTime(), time.Now()
	out, err := e.poller.PollNow(context.Background(), e.ws.ID, e.src.ID)
	s := sample{cpu: cpuTime() - c0, wall: time.Since(w0)}
	s.stmts, s.roundTrips = -1, -1 // not counted on SQLite
	if e.db.dialect == store.Postgres {
		s.stmts, s.roundTrips = e.db.statements(b)-st0, e.db.roundTrips()-rt0
	}
	if err != nil {
		b.Fatal(err)
	}
	want := map[pollKind]int{allNew: e.items, oneNew: 1, notModif: 0}[k]
	wantStatus := model.StatusOK
	if k == notModif {
		wantStatus = model.StatusNotModified
	}
	if out.Status != wantStatus || out.ItemsNew != want {
		b.Fatalf("%v poll: status %s, %d new; want %s, %d new (error %q)", k, out.Status, out.ItemsNew, wantStatus, want, out.Error)
	}
	return s
}

// report adds the per-poll averages of samples as custom metrics.
func report(b *testing.B, samples []sample) {
	var cpu time.Duration
	var stmts, rts int64
	for _, s := range samples {
		cpu += s.cpu
		stmts += s.stmts
		rts += s.roundTrips
	}
	n := float64(len(samples))
	b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/op")
	if samples[0].stmts >= 0 {
		b.ReportMetric(float64(stmts)/n, "stmts/op")
		b.ReportMetric(float64(rts)/n, "roundtrips/op")
	}
}

// BenchmarkPoll is the whole pipeline for one source through
// poller.PollNow: a changed 20-item feed whose items are all new, one
// whose single top item is new, and an unchanged one (304). cpu-µs/op is
// this process's CPU (on SQLite the database's too); stmts/op and
// roundtrips/op count what reached PostgreSQL (pg_stat_statements, and a
// proxy on the wire).
func BenchmarkPoll(b *testing.B) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		for _, k := range []pollKind{allNew, oneNew, notModif} {
			b.Run(dialect+"/"+k.String(), func(b *testing.B) {
				runPolls(b, newPollEnv(b, dialect, 20), k)
			})
		}
	}
}

// runPolls warms e with one changed poll (validators, profile cache,
// connections), then times b.N polls of kind k, each prepared untimed.
func runPolls(b *testing.B, e *pollEnv, k pollKind) {
	e.prepare(b, allNew)
	e.poll(b, allNew)
	samples := make([]sample, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e.prepare(b, k)
		b.StartTimer()
		samples = append(samples, e.poll(b, k))
	}
	b.StopTimer()
	report(b, samples)
}

// BenchmarkPollQueries shows that dedup and promotion cost a constant
// number of statements whatever the number of items: the same changed poll
// with 5, 20 and 100 new items, on PostgreSQL.
func BenchmarkPollQueries(b *testing.B) {
	for _, items := range []int{5, 20, 100} {
		b.Run(fmt.Sprintf("items=%d", items), func(b *testing.B) {
			runPolls(b, newPollEnv(b, store.Postgres, items), allNew)
		})
	}
}

// BenchmarkRatios measures the ratios side by side: every
// iteration runs the floor on the feed's bytes, a changed poll of the same
// bytes with every item new, and a 304 poll, interleaved so that machine
// noise hits all three alike.
//
//	pipeline/floor: CPU of the changed poll over the floor's (target ≤ 1.5)
//	changed/304:    CPU of the changed poll over the 304 poll's (target ≥ 10)
//
// On SQLite the database works inside this process and its CPU is
// counted; on PostgreSQL only the client side is (the server's CPU is in
// other processes), which is what the daemon's own CPU would show.
func BenchmarkRatios(b *testing.B) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		b.Run(dialect, func(b *testing.B) {
			e := newPollEnv(b, dialect, 20)
			body := farmFeed(b, feedfarm.FormatRSS, 20)
			e.prepare(b, allNew)
			e.poll(b, allNew)
			var floorCPU, changedCPU, nmCPU time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c0 := cpuTime()
				if _, err := floor(body); err != nil {
					b.Fatal(err)
				}
				floorCPU += cpuTime() - c0
				b.StopTimer()
				e.prepare(b, allNew)
				b.StartTimer()
				changedCPU += e.poll(b, allNew).cpu
				nmCPU += e.poll(b, notModif).cpu
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(float64(floorCPU.Microseconds())/n, "floor-cpu-µs")
			b.ReportMetric(float64(changedCPU.Microseconds())/n, "changed-cpu-µs")
			b.ReportMetric(float64(nmCPU.Microseconds())/n, "304-cpu-µs")
			b.ReportMetric(float64(changedCPU)/float64(floorCPU), "pipeline/floor")
			b.ReportMetric(float64(changedCPU)/float64(nmCPU), "changed/304")
		})
	}
}
