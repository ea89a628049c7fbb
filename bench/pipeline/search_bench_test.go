package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/textquery"
)

// searchVocabulary is a synthetic language: vocabSize words whose
// frequencies follow Zipf's law, as a natural language's do, so that
// queries range from words in most articles to words in a few.
const vocabSize = 20000

func vocabWord(i uint64) string {
	const syllables = "ka lo mi ne ru ta vo zi pe su"
	s := strings.Fields(syllables)
	var b strings.Builder
	for n := i + 1; n > 0; n /= 10 {
		b.WriteString(s[n%10])
	}
	return b.String()
}

// seedSearchCorpus stores count articles of ~150 words (a title of 6) in
// workspace 1 through multi-row INSERTs; the full-text index is built by
// SQLite's triggers, on PostgreSQL by the daemon's IndexSearchText.
func seedSearchCorpus(tb testing.TB, d *benchDB, count int) {
	tb.Helper()
	ctx := context.Background()
	if _, err := d.store.CreateWorkspace(ctx, "search", benchProfile()); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, vocabSize-1)
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocabWord(zipf.Uint64())
		}
		return strings.Join(w, " ")
	}
	const batch = 500
	db := d.store.DB()
	for start := 0; start < count; start += batch {
		n := min(batch, count-start)
		var sb strings.Builder
		sb.WriteString(`INSERT INTO feed_articles (workspace_id, external_url, title, summary, content_markdown, content_text_hash, relevance_score) VALUES `)
		args := make([]any, 0, n*6)
		for i := range n {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("(1, ?, ?, ?, ?, ?, ?)")
			id := start + i
			body := words(150)
			args = append(args, fmt.Sprintf("https://search.test/%d", id), words(6), words(20), body, strconv.Itoa(id), rng.Float64())
		}
		if _, err := db.ExecContext(ctx, db.Rebind(sb.String()+" /* bench-setup */"), args...); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := d.store.IndexSearchText(ctx); err != nil {
		tb.Fatal(err)
	}
	if d.dialect == store.Postgres {
		d.exec(tb, `ANALYZE feed_articles /* bench-setup */`)
	}
}

// searchQueries mix what people type: a frequent word (in a large share
// of articles), rarer words, two words, a phrase, a prefix, an exclusion
// and OR.
func searchQueries() []string {
	w := vocabWord
	return []string{
		w(2),                                  // frequent
		w(300),                                // common
		w(5000),                               // rare
		w(40) + " " + w(120),                  // two words
		`"` + w(3) + " " + w(4) + `"`,         // phrase
		w(700)[:4] + "*",                      // prefix
		w(60) + " -" + w(2),                   // exclusion
		w(800) + " OR " + w(900) + " " + w(5), // OR
	}
}

// BenchmarkSearch is full-text search at 100 000 articles (-search-size:
// FEEDPOLLER_BENCH_SEARCH_ARTICLES), ranked, with snippets, the 10 best:
// the latency of each query of searchQueries, p50 and p95 over all of
// them and the CPU per query, per database.
func BenchmarkSearch(b *testing.B) {
	count := 100000
	if v, err := strconv.Atoi(os.Getenv("FEEDPOLLER_BENCH_SEARCH_ARTICLES")); err == nil && v > 0 {
		count = v
	}
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		b.Run(fmt.Sprintf("%s/articles=%d", dialect, count), func(b *testing.B) {
			d := openDB(b, dialect)
			t0 := time.Now()
			seedSearchCorpus(b, d, count)
			b.Logf("%s: %d articles stored and indexed in %s", dialect, count, time.Since(t0).Round(time.Second))
			var queries []string
			for _, s := range searchQueries() {
				// Each is checked before it is timed: a search that cannot run measures nothing.
				if _, err := textquery.Parse(s); err != nil {
					b.Fatal(err)
				}
				queries = append(queries, s)
			}
			ctx := context.Background()
			var lat []time.Duration
			var cpu time.Duration
			hits := make([]int, len(queries))
			perQuery := make([][]time.Duration, len(queries))
			perQueryCPU := make([]time.Duration, len(queries))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j, q := range queries {
					t, c := time.Now(), cpuTime()
					res, err := d.store.Search(ctx, 1, model.SearchFilter{Query: q, Limit: 10})
					lat = append(lat, time.Since(t))
					c = cpuTime() - c
					cpu += c
					perQueryCPU[j] += c
					perQuery[j] = append(perQuery[j], lat[len(lat)-1])
					if err != nil {
						b.Fatal(err)
					}
					hits[j] = len(res)
				}
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			pct := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.5), "p50-ms")
			b.ReportMetric(pct(0.95), "p95-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
			// This process's CPU per query: on SQLite the search itself,
			// which a loaded machine does not inflate as it does latency;
			// on PostgreSQL only the client's share.
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "cpu-ms/query")
			for j, s := range searchQueries() {
				pq := perQuery[j]
				sort.Slice(pq, func(i, k int) bool { return pq[i] < pq[k] })
				b.Logf("%-40s %d results, median %.1f ms, cpu %.1f ms", s, hits[j],
					float64(pq[len(pq)/2].Microseconds())/1000, float64(perQueryCPU[j].Microseconds())/1000/float64(len(pq)))
			}
		})
	}
}

// BenchmarkSaveWithSearchIndex is the save path's cost with the full-text
// index against the same without it (SQLite: its triggers dropped;
// PostgreSQL: no vector computed, its GIN index dropped), a changed poll
// of 20 new items each, interleaved in one run so that machine noise hits
// both alike. cpu-µs is this process's CPU (on SQLite the database's too;
// on PostgreSQL the daemon's computing of the vectors); server-ms adds
// PostgreSQL's execution time of the poll's statements
// (pg_stat_statements): reading the vectors, the GIN entries;
// server-cpu-ms the server's CPU instead, the ratio to trust on a loaded
// machine.
func BenchmarkSaveWithSearchIndex(b *testing.B) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		b.Run(dialect, func(b *testing.B) {
			withoutDialect := dialect
			if dialect == store.Postgres {
				withoutDialect = pgNoSearchVectors
			}
			with, without := newPollEnv(b, dialect, 20), newPollEnv(b, withoutDialect, 20)
			dropSearchIndex(b, without.db)
			for _, e := range []*pollEnv{with, without} {
				e.prepare(b, allNew)
				e.poll(b, allNew)
			}
			var cpu, server, serverCPU [2]time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k, e := range []*pollEnv{without, with} {
					b.StopTimer()
					e.prepare(b, allNew)
					s0, c0 := e.db.serverTime(b), e.db.serverCPU(b)
					b.StartTimer()
					cpu[k] += e.poll(b, allNew).cpu
					server[k] += e.db.serverTime(b) - s0
					serverCPU[k] += e.db.serverCPU(b) - c0
				}
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(float64(cpu[0].Microseconds())/n, "without-cpu-µs")
			b.ReportMetric(float64(cpu[1].Microseconds())/n, "with-cpu-µs")
			b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-with/without")
			if dialect == store.Postgres {
				b.ReportMetric(float64(server[0].Microseconds())/n/1000, "without-server-ms")
				b.ReportMetric(float64(server[1].Microseconds())/n/1000, "with-server-ms")
				b.ReportMetric(float64(cpu[1]+server[1])/float64(cpu[0]+server[0]), "total-with/without")
				// The same with the server's CPU (the cluster's, background
				// work included), which a loaded machine does not inflate
				// as it does the statements' time.
				b.ReportMetric(float64(serverCPU[0].Microseconds())/n/1000, "without-server-cpu-ms")
				b.ReportMetric(float64(serverCPU[1].Microseconds())/n/1000, "with-server-cpu-ms")
				b.ReportMetric(float64(cpu[1]+serverCPU[1])/float64(cpu[0]+serverCPU[0]), "cpu-total-with/without")
			}
		})
	}
}

// dropSearchIndex removes what keeps the full-text index: the save path
// as it was before it.
func dropSearchIndex(tb testing.TB, d *benchDB) {
	tb.Helper()
	switch d.dialect {
	case store.SQLite:
		for _, t := range []string{"insert", "update", "delete"} {
			d.exec(tb, `DROP TRIGGER feed_articles_fts_`+t+` /* bench-setup */`)
		}
	case store.Postgres:
		// The store computes no vector (pgNoSearchVectors).
		d.exec(tb, `DROP INDEX feed_articles_search /* bench-setup */`)
	}
}

// serverTime is the time PostgreSQL spent executing the benchmark
// database's statements so far (0 on SQLite, whose work is in-process).
func (d *benchDB) serverTime(tb testing.TB) time.Duration {
	tb.Helper()
	if d.dialect != store.Postgres {
		return 0
	}
	return time.Duration(d.statStatements(tb, "total_exec_time") * float64(time.Millisecond))
}
