package chaos

import (
	"testing"
	"time"
)

// TestKillDuringBusyTick kills the daemon with SIGKILL while a tick is
// busy (polls in flight, claimed sources waiting for a worker, some polls
// already stored), then starts a new one on the same database. Nothing may
// be stored twice or lost, no source may stay leased past its lease, and
// failure counters must be as if nothing had happened.
func TestKillDuringBusyTick(t *testing.T) {
	const (
		feeds = 40
		items = 5
		lease = 5 * time.Second
	)
	farm := NewFarm()
	t.Cleanup(farm.Close)
	farm.SetItems(items)
	// 40 feeds at 300ms each through 4 workers: a tick of about 3 seconds.
	farm.SetDelay(300 * time.Millisecond)

	dbURL := newDatabase(t)
	env := chaosEnv(dbURL, "FEEDPOLLER_POLLER_WORKERS=4", "FEEDPOLLER_POLLER_LEASE="+lease.String(),
		"FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true", "FEEDPOLLER_LOG_LEVEL=info")
	first := startDaemon(t, env)
	sql := openDB(t, dbURL)
	ws := sql.workspace("crash")
	ids := make([]int64, feeds)
	for n := range ids {
		ids[n], _ = sql.addSource(ws, newSource{url: farm.URL() + FeedPath(n)})
	}

	// Kill once a few polls are stored and others are in flight.
	if !eventually(2*time.Minute, func() bool {
		return sql.int(`SELECT COUNT(*) FROM poll_runs`) >= 8 && farm.Active() > 0
	}) {
		t.Fatalf("the tick never got busy: %d poll_runs, %d requests in flight", sql.int(`SELECT COUNT(*) FROM poll_runs`), farm.Active())
	}
	inFlight := farm.Active()
	first.Kill()
	killed := time.Now()
	stored := sql.int(`SELECT COUNT(*) FROM poll_runs`)
	leased := sql.int(`SELECT COUNT(*) FROM feed_sources WHERE lease_owner <> '' AND lease_until > now()`)
	t.Logf("killed with %d polls stored, %d requests in flight, %d sources leased to the dead daemon", stored, inFlight, leased)
	if leased == 0 || stored == feeds {
		t.Fatalf("the kill missed the busy tick (%d leased, %d of %d stored): nothing to recover from", leased, stored, feeds)
	}

	farm.SetDelay(0)
	second := startDaemon(t, env)
	if !eventually(lease+2*time.Minute, func() bool {
		return sql.int(`SELECT COUNT(DISTINCT feed_source_id) FROM poll_runs`) == feeds &&
			sql.int(`SELECT COUNT(*) FROM feed_sources WHERE lease_owner <> ''`) == 0
	}) {
		t.Errorf("after the restart: %d of %d sources polled, %d still leased",
			sql.int(`SELECT COUNT(DISTINCT feed_source_id) FROM poll_runs`), feeds,
			sql.int(`SELECT COUNT(*) FROM feed_sources WHERE lease_owner <> ''`))
	}
	// The dead daemon's sources came back when their lease ran out, not
	// later: the last first poll starts within the lease of the kill, plus
	// a tick and the restart.
	var lastFirst time.Time
	for _, id := range ids {
		if runs := sql.runs(id); len(runs) > 0 && runs[0].StartedAt.After(lastFirst) {
			lastFirst = runs[0].StartedAt
		}
	}
	// Reported, not bounded: how soon after the lease the restarted daemon
	// gets to every source depends on the machine's load.
	recovery := lastFirst.Sub(killed)
	t.Logf("every source polled %v after the kill (lease %v)", recovery.Round(time.Millisecond), lease)
	if !second.Healthy() {
		t.Errorf("the restarted daemon is not healthy: %v", second.Err())
	}
	checkNoPanic(t, second)
	checkNoPanic(t, first)
	if n := sql.int(`SELECT COUNT(*) FROM feed_sources WHERE consecutive_failures <> 0 OR last_polled_status <> 'ok'`); n != 0 {
		t.Errorf("%d sources show a failure after the crash", n)
	}
	if n := sql.int(`SELECT COUNT(*) FROM poll_runs WHERE outcome <> 'ok'`); n != 0 {
		t.Errorf("%d poll_runs record a failure", n)
	}
	sql.checkStoredWhole(ws, ids, items)
}
