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

// claimStatements are PostgreSQL claiming statements: "store" is a copy
// of store.ClaimDue's (if that changes, change it here too); "array" is the
// proposed form, which collects the ids into an array first so that the
// outer UPDATE finds its rows through the primary key instead of joining
// the whole table.
var claimStatements = map[string]string{
	"store": `UPDATE feed_sources SET due_at = next_poll_at, next_poll_at = $1, lease_until = $1, lease_owner = $2
			WHERE id IN (SELECT id FROM feed_sources
				WHERE is_active AND consecutive_failures < 10 AND next_poll_at <= $3
				ORDER BY next_poll_at LIMIT $4 FOR UPDATE SKIP LOCKED)
			RETURNING `,
	"array": `UPDATE feed_sources SET due_at = next_poll_at, next_poll_at = $1, lease_until = $1, lease_owner = $2
			WHERE id = ANY (ARRAY(SELECT id FROM feed_sources
				WHERE is_active AND consecutive_failures < 10 AND next_poll_at <= $3
				ORDER BY next_poll_at LIMIT $4 FOR UPDATE SKIP LOCKED))
			RETURNING `,
}

// sourceColumns is what ClaimDue returns (store's list, copied).
const sourceColumns = `id, workspace_id, url, source_type, title, is_active, polling_interval_minutes, track_changes,
	etag, last_modified, last_polled_at, last_polled_status, last_polled_error, consecutive_failures,
	next_poll_at, last_unconditional_at, due_at, lease_until, lease_owner, created_at, updated_at`

// claimPlan runs a claiming statement under EXPLAIN ANALYZE in a
// transaction that is rolled back, and returns the plan.
func claimPlan(tb testing.TB, d *benchDB, form string) string {
	tb.Helper()
	tx, err := d.direct.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) /* bench-setup */ `+claimStatements[form]+`id`,
		time.Now().Add(10*time.Minute), "explain", time.Now(), claimBatch)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
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
// due sources through the partial index feed_sources_due, and that the
// proposed array form touches no other row than the claimed ones. At this
// size the planner may choose to join the store's statement against a
// scan of the whole table (cheaper than 500 primary-key lookups by its
// cost model; at 1 000 000 it no longer does, see BenchmarkClaimDue): that
// is logged, not failed.
func TestClaimReadsDueIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	d := openDB(t, store.Postgres)
	seedSources(t, d, 10_000)
	for _, form := range []string{"store", "array"} {
		plan := claimPlan(t, d, form)
		t.Logf("plan of the %s statement:\n%s", form, plan)
		if !readsDueIndex(plan) {
			t.Errorf("the %s statement does not read feed_sources_due", form)
		}
		if scansTable(plan) {
			if form == "array" {
				t.Errorf("the array statement scans the whole table")
			} else {
				t.Logf("note: at 10 000 sources the store statement joins a table scan")
			}
		}
	}
}

// BenchmarkClaimDue times claiming a batch of 500 due sources out of
// 10 000, and out of 1 000 000 when FEEDPOLLER_BENCH_MILLION=1: "store" is
// store.ClaimDue itself, "array" the proposed statement. The claimed
// sources are given back between iterations (untimed), so every iteration
// finds the same backlog. Both plans are logged (-v).
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
			for _, form := range []string{"store", "array"} {
				plan := claimPlan(b, d, form)
				b.Logf("EXPLAIN ANALYZE of the %s statement at %d sources:\n%s", form, size, plan)
				if !readsDueIndex(plan) || (size >= 1_000_000 && scansTable(plan)) {
					b.Fatalf("the %s statement at %d sources does not claim through the indexes alone", form, size)
				}
			}
			ctx := context.Background()
			claims := map[string]func() (int, error){
				"store": func() (int, error) {
					got, err := d.store.ClaimDue(ctx, "bench", claimBatch, 10*time.Minute)
					return len(got), err
				},
				"array": func() (int, error) {
					var got []store.FeedSource
					now := time.Now().UTC()
					err := d.store.DB().SelectContext(ctx, &got, claimStatements["array"]+sourceColumns,
						now.Add(10*time.Minute), "bench", now, claimBatch)
					return len(got), err
				},
			}
			for _, form := range []string{"store", "array"} {
				b.Run(form, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						n, err := claims[form]()
						if err != nil {
							b.Fatal(err)
						}
						if n != claimBatch {
							b.Fatalf("claimed %d sources, want %d", n, claimBatch)
						}
						b.StopTimer()
						d.exec(b, `UPDATE feed_sources SET next_poll_at = due_at, lease_until = NULL, lease_owner = ''
							WHERE lease_owner = 'bench' /* bench-setup */`)
						b.StartTimer()
					}
				})
			}
		})
	}
}
