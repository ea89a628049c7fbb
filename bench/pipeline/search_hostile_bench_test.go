package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/textquery"
)

// BenchmarkSearchHostile is full-text search on the inputs that stalled
// the daemon: 32 times "the" over three 20 KB articles, and 4 and 32 times
// "alpha" over one article of a megabyte of that word, on each database.
// It reports the wall time and this process's CPU per search (on SQLite
// the search itself; on PostgreSQL the client's share). A search that
// runs past FEEDPOLLER_BENCH_HOSTILE_DEADLINE (default 2 minutes) is
// stopped and counted in "stopped".
func BenchmarkSearchHostile(b *testing.B) {
	deadline := 2 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("FEEDPOLLER_BENCH_HOSTILE_DEADLINE")); err == nil && d > 0 {
		deadline = d
	}
	cases := []struct{ name, query string }{
		{"the×32", strings.TrimSpace(strings.Repeat("the ", 32))},
		{"alpha×4", strings.TrimSpace(strings.Repeat("alpha ", 4))},
		{"alpha×32", strings.TrimSpace(strings.Repeat("alpha ", 32))},
	}
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		d := openDB(b, dialect)
		seedHostile(b, d)
		for _, c := range cases {
			b.Run(dialect+"/"+c.name, func(b *testing.B) {
				if _, err := textquery.Parse(c.query); err != nil {
					b.Fatal(err)
				}
				var cpu time.Duration
				stopped := 0
				b.ResetTimer()
				for range b.N {
					ctx, cancel := context.WithTimeout(context.Background(), deadline)
					c0 := cpuTime()
					_, err := d.store.Search(ctx, 1, model.SearchFilter{Query: c.query, Limit: 10})
					cpu += cpuTime() - c0
					cancel()
					if err != nil {
						if ctx.Err() == nil && !errors.Is(err, model.ErrSearchTimeout) {
							b.Fatal(err)
						}
						stopped++
					}
				}
				b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/search")
				b.ReportMetric(float64(stopped), "stopped")
			})
		}
	}
}

// seedHostile stores the hostile articles in workspace 1.
func seedHostile(tb testing.TB, d *benchDB) {
	tb.Helper()
	ctx := context.Background()
	if _, err := d.store.CreateWorkspace(ctx, "hostile", benchProfile()); err != nil {
		tb.Fatal(err)
	}
	prose := strings.Repeat("the history of the web and the people of the net ", 20<<10/50)
	bodies := []string{prose, prose, prose, strings.Repeat("alpha ", 1<<20/6)}
	db := d.store.DB()
	for i, body := range bodies {
		if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO feed_articles (workspace_id, external_url, title, summary,
			content_markdown, content_text_hash, relevance_score) VALUES (1, ?, ?, '', ?, ?, 0.5) /* bench-setup */`),
			fmt.Sprintf("https://hostile.test/%d", i), fmt.Sprintf("Hostile %d", i), body, fmt.Sprint(i)); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := d.store.IndexSearchText(ctx); err != nil {
		tb.Fatal(err)
	}
}
