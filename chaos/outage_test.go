package chaos

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// The daemon's outage log line and its recovery line.
const (
	outageLine    = "database unavailable"
	recoveredLine = "database reachable again"
	notRecorded   = "poll not recorded"
)

// TestDatabaseOutage stops PostgreSQL while polls are in flight, keeps it
// down for several ticks, and starts it again on the same port. The daemon
// must ride it out: keep running, log the outage once a minute at most
// however many polls and ticks hit it, count
// no source failure, and redo by itself the polls whose results it could
// not write, storing each whole exactly once.
func TestDatabaseOutage(t *testing.T) {
	const (
		feeds    = 20
		before   = 3 // items per feed before the outage
		after    = 5 // items per feed when the polls caught in the outage fetch
		downtime = 6 * time.Second
	)
	cluster := testdb.NewCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbURL, err := cluster.CreateDatabase(ctx, "outage")
	if err != nil {
		t.Fatal(err)
	}
	farm := NewFarm()
	t.Cleanup(farm.Close)
	farm.SetItems(before)

	d := startDaemon(t, chaosEnv(dbURL, "FEEDPOLLER_POLLER_WORKERS=32", "FEEDPOLLER_POLLER_LEASE=5s",
		"FEEDPOLLER_POLLER_JITTER=0", "FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true", "FEEDPOLLER_LOG_LEVEL=debug"))
	sql := openDB(t, dbURL)
	ws := sql.workspace("outage")
	ids := make([]int64, feeds)
	for n := range ids {
		ids[n], _ = sql.addSource(ws, newSource{url: farm.URL() + FeedPath(n)})
	}
	if !eventually(2*time.Minute, func() bool {
		return sql.int(`SELECT COUNT(*) FROM feed_articles`) == feeds*before &&
			sql.int(`SELECT COUNT(*) FROM feed_sources WHERE lease_owner = ''`) == feeds
	}) {
		t.Fatalf("first round not stored: %d articles, want %d", sql.int(`SELECT COUNT(*) FROM feed_articles`), feeds*before)
	}
	runsBefore := sql.int(`SELECT COUNT(*) FROM poll_runs`)

	// Every feed comes due, is claimed and starts fetching; the farm holds
	// the answers until the database is gone.
	farm.Hold()
	farm.SetItems(after)
	sql.exec(`UPDATE feed_sources SET next_poll_at = now()`)
	if !eventually(2*time.Minute, func() bool { return farm.Waiting() == feeds }) {
		t.Fatalf("%d of %d polls reached the farm", farm.Waiting(), feeds)
	}
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	farm.Release()
	time.Sleep(downtime)
	if !d.Alive() {
		t.Fatalf("the daemon died during the outage: %v", d.Err())
	}
	failedPolls := d.LogLines(notRecorded)
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	t.Logf("database down for %v; %d polls could not be recorded meanwhile", up.Sub(down).Round(time.Millisecond), failedPolls)

	// The lease (5s) has run out during the outage: the polls are redone
	// as soon as the daemon can claim again.
	if !eventually(2*time.Minute, func() bool {
		return sql.int(`SELECT COUNT(*) FROM feed_articles`) == feeds*after &&
			sql.int(`SELECT COUNT(*) FROM feed_sources WHERE lease_owner = '' AND last_polled_at > $1`, up) == feeds
	}) {
		t.Errorf("after the database returned: %d articles (want %d), %d of %d sources polled again",
			sql.int(`SELECT COUNT(*) FROM feed_articles`), feeds*after,
			sql.int(`SELECT COUNT(*) FROM feed_sources WHERE last_polled_at > $1`, up), feeds)
	}
	resumed := sql.int(`SELECT COUNT(*) FROM poll_runs WHERE started_at > $1`, up)
	t.Logf("resumed by itself: %d poll_runs after the restart (%d before the outage)", resumed, runsBefore)

	if !d.Healthy() {
		t.Errorf("the daemon is not running and healthy after the outage: %v", d.Err())
	}
	checkNoPanic(t, d)
	if failedPolls < feeds {
		t.Errorf("%d polls reported unrecorded during the outage, want all %d caught in it", failedPolls, feeds)
	}
	// One line per started minute of trouble, however many polls and
	// ticks hit it: a loaded machine may stretch the outage past a minute,
	// which then rightly earns a second line.
	troubled := time.Since(down)
	if n, most := d.LogLines(outageLine), 1+int(troubled/time.Minute); n < 1 || n > most {
		t.Errorf("the outage was logged %d times, want 1 to %d (trouble lasted at most %v and hit %d polls and several ticks):\n%s",
			n, most, troubled.Round(time.Second), failedPolls, linesWith(d.Output(), outageLine, recoveredLine))
	}
	if n := d.LogLines(recoveredLine); n != 1 {
		t.Errorf("the recovery was logged %d times, want once:\n%s", n, linesWith(d.Output(), outageLine, recoveredLine))
	}
	if n := sql.int(`SELECT COUNT(*) FROM feed_sources WHERE consecutive_failures <> 0 OR last_polled_status NOT IN ('ok', 'not_modified')`); n != 0 {
		t.Errorf("%d sources counted the outage as their failure", n)
	}
	if n := sql.int(`SELECT COUNT(*) FROM poll_runs WHERE outcome NOT IN ('ok', 'not_modified')`); n != 0 {
		t.Errorf("%d poll_runs record a failure", n)
	}
	// The redone poll stored the two new items of each feed, once.
	if n := sql.int(`SELECT COUNT(*) FROM poll_runs WHERE started_at > $1 AND items_new = $2`, down, after-before); n != feeds {
		t.Errorf("%d redone polls stored the %d new items, want %d", n, after-before, feeds)
	}
	sql.checkStoredWhole(ws, ids, after)
}

// linesWith returns the lines of out that hold one of subs.
func linesWith(out string, subs ...string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		for _, s := range subs {
			if strings.Contains(line, s) {
				b.WriteString(line + "\n")
				break
			}
		}
	}
	return b.String()
}
