package pipeline

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/store"
)

// EnvMillion enables the 1 000 000-source claiming benchmark, which spends
// a minute or so inserting rows before it measures anything.
const EnvMillion = "FEEDPOLLER_BENCH_MILLION"

// claimBatch is the batch the target is stated for.
const claimBatch = 500

// seedSources inserts count RSS sources into workspace 1 with one
// statement: due times spread over the 30 minutes around now (so about
// half are due), one in 50 inactive and one in 70 at the failure limit,
// so the partial index has rows to leave out.
func seedSources(tb testing.TB, d *benchDB, count int) {
	tb.Helper()
	if _, err := d.store.CreateWorkspace(context.Background(), "bench", benchProfile()); err != nil {
		tb.Fatal(err)
	}
	d.exec(tb, `INSERT INTO feed_sources (workspace_id, url, source_type, is_active, consecutive_failures, next_poll_at)
		SELECT 1, 'https://farm.test/feed/' || i || '.xml', 'rss', i % 50 <> 0, CASE WHEN i % 70 = 0 THEN 10 ELSE 0 END,
			now() - interval '15 minutes' + (i % 1800) * interval '1 second'
		FROM generate_series(1, ?) i /* bench-setup */`, count)
	d.exec(tb, `VACUUM ANALYZE feed_sources /* bench-setup */`)
}

// claimPlan is the plan of store.ClaimDue's own statement, run under
// EXPLAIN ANALYZE in a transaction that is rolled back.
func claimPlan(tb testing.TB, d *benchDB) string {
	tb.Helper()
	plan, err := d.store.ExplainClaimDue(context.Background(), claimBatch)
	if err != nil {
		tb.Fatal(err)
	}
	return plan
}

// readsDueIndex reports whether the due sources are found through the
// partial index feed_sources_due.
func readsDueIndex(plan string) bool {
	return strings.Contains(plan, "Index Scan using feed_sources_due on feed_sources")
}

// scansTable reports whether any step of the plan reads all of
// feed_sources.
func scansTable(plan string) bool {
	return strings.Contains(plan, "Seq Scan on feed_sources")
}

// TestClaimReadsDueIndex checks on 10 000 sources that claiming finds the
// due sources through the partial index feed_sources_due and touches no
// row but the claimed ones (no scan of the table).
func TestClaimReadsDueIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	d := openDB(t, store.Postgres)
	seedSources(t, d, 10_000)
	plan := claimPlan(t, d)
	t.Logf("plan of the claiming statement:\n%s", plan)
	if !readsDueIndex(plan) {
		t.Error("claiming does not read feed_sources_due")
	}
	if scansTable(plan) {
		t.Error("claiming scans the whole table")
	}
}

// BenchmarkClaimDue times store.ClaimDue claiming a batch of 500 due
// sources out of 10 000, and out of 1 000 000 when
// FEEDPOLLER_BENCH_MILLION=1. The claimed sources are given back between
// iterations (untimed), so every iteration finds the same backlog. The
// plan is logged (-v).
func BenchmarkClaimDue(b *testing.B) {
	sizes := []int{10_000}
	if os.Getenv(EnvMillion) == "1" {
		sizes = append(sizes, 1_000_000)
	}
	for _, size := range sizes {
		b.Run(fmt.Sprintf("sources=%d", size), func(b *testing.B) {
			d := openDB(b, store.Postgres)
			start := time.Now()
			seedSources(b, d, size)
			b.Logf("%d sources inserted in %.1fs", size, time.Since(start).Seconds())
			plan := claimPlan(b, d)
			b.Logf("EXPLAIN ANALYZE of the claiming statement at %d sources:\n%s", size, plan)
			if !readsDueIndex(plan) || scansTable(plan) {
				b.Fatalf("claiming at %d sources does not go through the indexes alone", size)
			}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				got, err := d.store.ClaimDue(ctx, "bench", claimBatch, 10*time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != claimBatch {
					b.Fatalf("claimed %d sources, want %d", len(got), claimBatch)
				}
				b.StopTimer()
				d.exec(b, `UPDATE feed_sources SET next_poll_at = due_at, lease_until = NULL, lease_owner = ''
					WHERE lease_owner = 'bench' /* bench-setup */`)
				b.StartTimer()
			}
		})
	}
}
