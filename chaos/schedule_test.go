package chaos

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPausedSourceIsNeverFetched gives the daemon sources that the failure
// counter has paused (10 consecutive failures and more), overdue by an hour,
// next to a healthy control source that is made due again and again. Every
// tick that polls the control also sees the paused ones due by time; none
// of them may be fetched.
func TestPausedSourceIsNeverFetched(t *testing.T) {
	t.Parallel()
	farm, d, sql, ws := scheduleSetup(t, "paused")

	type pausedSource struct {
		failures int
		path     string
		id       int64
	}
	var paused []pausedSource
	for i, failures := range []int{10, 11, 25} {
		p := pausedSource{failures: failures, path: FeedPath(100 + i)}
		p.id, _ = sql.addSource(ws, newSource{url: farm.URL() + p.path, consecutiveFailures: failures, dueAgo: time.Hour})
		paused = append(paused, p)
	}
	control, _ := sql.addSource(ws, newSource{url: farm.URL() + FeedPath(1)})

	const rounds = 4
	for round := 1; round <= rounds; round++ {
		if !eventually(2*time.Minute, func() bool { return len(sql.runs(control)) >= round }) {
			t.Fatalf("round %d: the control source was not polled (%d polls)", round, len(sql.runs(control)))
		}
		// Due again at once, and the paused ones overdue too.
		sql.exec(`UPDATE feed_sources SET next_poll_at = now() - interval '1 minute'`)
	}
	t.Logf("control source polled %d times, each by a tick that also saw the paused sources due", rounds)
	for _, p := range paused {
		s := sql.source(p.id)
		hits := farm.Hits(p.path)
		if hits != 0 || len(sql.runs(p.id)) != 0 || s.LastPolledAt.Valid || s.ConsecutiveFailures != p.failures {
			t.Errorf("source paused at %d failures: %d requests, %d polls, last polled %v, failures now %d; want it left alone",
				p.failures, hits, len(sql.runs(p.id)), s.LastPolledAt, s.ConsecutiveFailures)
		}
	}
	if !d.Healthy() {
		t.Errorf("daemon not healthy: %v", d.Err())
	}
}

// scheduleSetup starts a farm serving two-item feeds and a daemon that may
// reach it directly, on a database of the test's own, with one workspace.
func scheduleSetup(t *testing.T, workspace string) (*Farm, *daemon, *db, int64) {
	t.Helper()
	farm := NewFarm()
	t.Cleanup(farm.Close)
	farm.SetItems(2)
	dbURL := newDatabase(t)
	d := startDaemon(t, chaosEnv(dbURL, "FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true"))
	sql := openDB(t, dbURL)
	return farm, d, sql, sql.workspace(workspace)
}

// TestBackoffAndDeferrals polls sources whose servers fail, vanish or ask
// for a pause, each from a chosen failure count, and reads where the daemon
// put their next poll. Each source is a site of its own (an Alias), so the
// per-domain breaker, which would rightly open for one site failing this
// often, stays out of the way. The daemon runs with the default jitter
// (up to 10% of the interval).
func TestBackoffAndDeferrals(t *testing.T) {
	t.Parallel()
	farm, d, sql, ws := scheduleSetup(t, "backoff")

	const cap24h = 24 * time.Hour
	raDate := time.Now().Add(5 * time.Minute).Truncate(time.Second)
	type want struct {
		failures int
		status   string
		active   bool
		// next poll after the poll: between min and max after it.
		min, max time.Duration
		errText  string
	}
	backoff := func(interval time.Duration, k int) want {
		d := min(interval<<k, cap24h)
		return want{failures: k, status: "error", active: true, min: d, max: min(d+d/10, max(cap24h, interval))}
	}
	cases := []struct {
		name     string
		path     string
		interval int // minutes
		failures int // before the poll
		want     want
	}{
		{"first failure: interval×2", "/status/404", 1, 0, backoff(time.Minute, 1)},
		{"second failure: interval×4", "/status/404", 1, 1, backoff(time.Minute, 2)},
		{"fourth failure: interval×16", "/status/404", 1, 3, backoff(time.Minute, 4)},
		{"seventh failure: interval×128", "/status/404", 1, 6, backoff(time.Minute, 7)},
		{"tenth failure: interval×1024, and paused", "/status/404", 1, 9, backoff(time.Minute, 10)},
		{"transient 500 after retries: interval×8", "/status/500", 1, 2, backoff(time.Minute, 3)},
		{"daily source: capped at 24h", "/status/404", 1440, 0, backoff(1440*time.Minute, 1)},
		{"hourly source, sixth failure: capped at 24h", "/status/404", 60, 5, backoff(time.Hour, 6)},
		{"success returns to the interval", FeedPath(1), 1, 4,
			want{failures: 0, status: "ok", active: true, min: time.Minute, max: time.Minute + 6*time.Second}},
		{"410 deactivates with the reason", "/status/410", 1, 2,
			want{failures: 2, status: "gone", active: false, min: 0, max: 2 * time.Minute, errText: "HTTP 410 (source deactivated)"}},
		// A Retry-After under the floor (5 min) waits for the floor.
		{"429 Retry-After seconds: deferred, not a failure", "/status/429?ra=120", 1, 3,
			want{failures: 3, status: "deferred", active: true, min: 5 * time.Minute, max: 5 * time.Minute, errText: "HTTP 429"}},
		{"503 Retry-After seconds: deferred, not a failure", "/status/503?ra=90", 1, 0,
			want{failures: 0, status: "deferred", active: true, min: 5 * time.Minute, max: 5 * time.Minute, errText: "HTTP 503"}},
		{"503 Retry-After 0: deferred to the floor, not every tick", "/status/503?ra=0", 1, 0,
			want{failures: 0, status: "deferred", active: true, min: 5 * time.Minute, max: 5 * time.Minute, errText: "HTTP 503"}},
		{"429 Retry-After date: deferred until then", "/status/429?ra_date=" + strconv.FormatInt(raDate.Unix(), 10), 1, 1,
			want{failures: 1, status: "deferred", active: true, min: time.Until(raDate) - 5*time.Second, max: time.Until(raDate) + 5*time.Second, errText: "HTTP 429"}},
	}
	ids := make([]int64, len(cases))
	for i, c := range cases {
		site := newAlias(t, farm.Addr())
		ids[i], _ = sql.addSource(ws, newSource{url: site.URL() + c.path, intervalMinutes: c.interval, consecutiveFailures: c.failures})
	}
	if !eventually(2*time.Minute, func() bool {
		return sql.int(`SELECT COUNT(*) FROM feed_sources WHERE last_polled_at IS NOT NULL AND lease_owner = ''`) == len(cases)
	}) {
		t.Fatalf("only %d of %d sources were polled", sql.int(`SELECT COUNT(*) FROM feed_sources WHERE last_polled_at IS NOT NULL`), len(cases))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := sql.source(ids[i])
			next := s.NextPollAt.Sub(s.LastPolledAt.Time)
			t.Logf("failures %d → %d, status %q, next poll %v after the poll, error %q", c.failures, s.ConsecutiveFailures, s.Status,
				next.Round(time.Second), s.Error)
			w := c.want
			if s.ConsecutiveFailures != w.failures || s.Status != w.status || s.IsActive != w.active {
				t.Errorf("failures %d, status %q, active %v; want %d, %q, %v", s.ConsecutiveFailures, s.Status, s.IsActive,
					w.failures, w.status, w.active)
			}
			// The poll's next time is computed a moment before
			// last_polled_at is written: a second of slack each way.
			if w.active && (next < w.min-time.Second || next > w.max+time.Second) {
				t.Errorf("next poll %v after the poll, want between %v and %v", next.Round(time.Second), w.min, w.max)
			}
			if w.errText != "" && s.Error != w.errText {
				t.Errorf("error %q, want %q", s.Error, w.errText)
			}
		})
	}

	// Several ticks later, the deactivated and the paused source have not
	// been fetched again.
	time.Sleep(3 * time.Second)
	for i, c := range cases {
		if c.want.active && c.want.failures < 10 {
			continue
		}
		if runs := len(sql.runs(ids[i])); runs != 1 {
			t.Errorf("%s: polled %d times, want once and never again", c.name, runs)
		}
	}
	if hits := farm.Hits("/status/410"); hits != 1 {
		t.Errorf("the gone source was fetched %d times, want once", hits)
	}
	if !d.Healthy() {
		t.Errorf("daemon not healthy: %v", d.Err())
	}
}

// TestOpenBreakerDefersWithoutCountingFailure lets five sources of one site
// fail with 5xx answers (a 4xx is about one URL and never counts), which
// opens that site's circuit breaker, then makes a healthy feed
// of the same site due: it must be skipped without a request and put off,
// not counted as failing. A healthy feed on another site, due at the same
// moment, is polled as usual.
func TestOpenBreakerDefersWithoutCountingFailure(t *testing.T) {
	t.Parallel()
	farm, d, sql, ws := scheduleSetup(t, "breaker")

	failing, other := newAlias(t, farm.Addr()), newAlias(t, farm.Addr())
	for i := 0; i < 5; i++ {
		sql.addSource(ws, newSource{url: failing.URL() + "/status/500?source=" + strconv.Itoa(i)})
	}
	if !eventually(2*time.Minute, func() bool {
		return sql.int(`SELECT COUNT(*) FROM feed_sources WHERE last_polled_status = 'error' AND lease_owner = ''`) == 5
	}) {
		t.Fatal("the failing sources were not polled")
	}
	sameSite, _ := sql.addSource(ws, newSource{url: failing.URL() + FeedPath(7)})
	otherSite, _ := sql.addSource(ws, newSource{url: other.URL() + FeedPath(8)})
	if !eventually(2*time.Minute, func() bool {
		return sql.source(sameSite).LastPolledAt.Valid && sql.source(otherSite).LastPolledAt.Valid
	}) {
		t.Fatal("the healthy feeds were not polled")
	}

	s := sql.source(sameSite)
	putOff := s.NextPollAt.Sub(s.LastPolledAt.Time)
	t.Logf("feed on the failing site: status %q, error %q, failures %d, next poll %v later, %d requests",
		s.Status, s.Error, s.ConsecutiveFailures, putOff.Round(time.Second), farm.Hits(FeedPath(7)))
	if s.Status != "deferred" || s.ConsecutiveFailures != 0 || farm.Hits(FeedPath(7)) != 0 {
		t.Errorf("feed on the failing site: status %q, %d failures, %d requests; want deferred without a request or a failure",
			s.Status, s.ConsecutiveFailures, farm.Hits(FeedPath(7)))
	}
	if !strings.Contains(s.Error, "circuit open") {
		t.Errorf("error %q does not say the site's circuit is open", s.Error)
	}
	// Put off until the breaker lets a trial through (30s by default),
	// not retried on the next tick.
	if putOff < 20*time.Second {
		t.Errorf("next poll %v after the skipped one: the deferral does not push it back", putOff)
	}
	if o := sql.source(otherSite); o.Status != "ok" || farm.Hits(FeedPath(8)) == 0 {
		t.Errorf("feed on another site: status %q after %d requests, want ok", o.Status, farm.Hits(FeedPath(8)))
	}
	if !d.Healthy() {
		t.Errorf("daemon not healthy: %v", d.Err())
	}
}
