package main

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// With as many polls in flight as there are workers, round after round,
// the daemon's pool keeps its PostgreSQL sessions: the second round runs
// on the very backends of the first (with 20 open and 10 idle hard-coded,
// 16 workers closed and reopened 6 sessions every round).
func TestPoolKeepsWorkerSessionsAcrossRounds(t *testing.T) {
	ctx := context.Background()
	cfg, err := loadConfig("", false, []string{"FEEDPOLLER_DATABASE_URL=" + testdb.URL(t, "postgres"), "FEEDPOLLER_POLLER_WORKERS=16"})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := openStore(ctx, cfg, slog.New(slog.DiscardHandler), slog.LevelDebug)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// round holds one connection per worker at once (as 16 polls in flight
	// do) and returns their backends' process ids.
	round := func() []int {
		t.Helper()
		pids := make([]int, cfg.Poller.Workers)
		for i := range pids {
			conn, err := st.DB().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pids[i]); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(pids)
		return pids
	}
	first := round()
	for i := 0; i < 3; i++ {
		if next := round(); !slices.Equal(next, first) {
			t.Fatalf("round %d ran on backends %v, the first on %v: the pool closed and reopened sessions", i+2, next, first)
		}
	}
	if got := st.PoolStats().MaxOpenConnections; got != cfg.Poller.Workers+poolSpare {
		t.Fatalf("pool of %d connections, want workers + %d", got, poolSpare)
	}
}
