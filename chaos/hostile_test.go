package chaos

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/internal/hostile"
)

// healthyFeeds is how many well-behaved feeds run beside the hostile ones.
const healthyFeeds = 50

// hostileWorkers is the daemon's worker pool in the hostile-server test.
const hostileWorkers = 16

// memoryBound is the most the daemon may hold resident at its peak while
// hostile servers stream 100 MB bodies and 2 GiB gzip bombs at it: four
// times workers × body cap (16 × 2 MiB), which leaves room for decoding,
// parsing, extraction, the Go runtime and the database pools. A client that
// read the bomb or the 100 MB body whole would be far over it.
const memoryBound = 4 * hostileWorkers * 2 << 20

// hostileErrors is the error each hostile endpoint's source must end with,
// when it ends in an error: what a person reading last_polled_error needs
// to know. An endpoint listed by hostile.Endpoints but missing here fails
// the test, so new endpoints cannot go unchecked.
var hostileErrors = map[string]*regexp.Regexp{
	"hang":                     regexp.MustCompile(`(?i)timed out|timeout|no response headers`),
	"trickle":                  regexp.MustCompile(`(?i)timed out|timeout`),
	"reset":                    regexp.MustCompile(`(?i)reset|closed|EOF`),
	"reset-midbody":            regexp.MustCompile(`(?i)reset|closed before the body ended|EOF`),
	"huge":                     regexp.MustCompile(`body exceeds 2(\.0)? ?MiB`),
	"gzipbomb":                 regexp.MustCompile(`body exceeds 2(\.0)? ?MiB`),
	"redirect-loop":            regexp.MustCompile(`(?i)redirect loop|too many redirects`),
	"redirect-metadata":        regexp.MustCompile(`169\.254\.169\.254 is not allowed \(link-local\)`),
	"redirect-metadata-mapped": regexp.MustCompile(`host \[::ffff:169\.254\.169\.254\] is not allowed \(link-local\)`),
	"redirect-private":         regexp.MustCompile(`10\.0\.0\.1 is not allowed \(private\)`),
	"redirect-localhost":       regexp.MustCompile(`host localhost is not allowed \(loopback\)`),
	"ratelimit":                regexp.MustCompile(`HTTP 429`),
	"flap":                     regexp.MustCompile(`HTTP 500`),
	"invalid-xml":              regexp.MustCompile(`(?i)pars|xml|not a (valid )?feed`),
	"billion-laughs":           regexp.MustCompile(`(?i)pars|xml|entit`),
	"many-items":               regexp.MustCompile(`body exceeds 2(\.0)? ?MiB`),
	"html-as-feed":             regexp.MustCompile(`(?i)not a feed|html`),
	"pdf":                      regexp.MustCompile(`application/pdf is not HTML`),
	"wrong-charset":            regexp.MustCompile(`.`),
	"markup":                   regexp.MustCompile(`.`),
	"wrong-charset-reverse":    regexp.MustCompile(`(?i)utf-?8|encoding|charset|pars`),
	"gone":                     regexp.MustCompile(`HTTP 410.*deactivated`),
	"notfound":                 regexp.MustCompile(`HTTP 404`),
}

// hopsPerRequest is how many hits one request to an endpoint makes when
// nothing is retried: both legs of the redirect loop count.
var hopsPerRequest = map[string]int{"redirect-loop": 2}

// observedOutcome reads the hostile.Outcome a source ended with from its
// row and from how often the server was hit per poll: transient failures
// are retried within a poll, permanent ones are not.
func observedOutcome(s sourceRow, hits int64, polls int, hops int) hostile.Outcome {
	switch s.Status {
	case "ok", "not_modified":
		return hostile.OutcomeOK
	case "deferred":
		return hostile.OutcomeRateLimited
	case "gone":
		return hostile.OutcomeGone
	case "error":
		if polls > 0 && hits >= int64(2*hops*polls) {
			return hostile.OutcomeTransient
		}
		return hostile.OutcomePermanent
	}
	return hostile.Outcome("status " + s.Status)
}

// TestHostileServers runs the daemon against 50 healthy feeds and one
// source per hostile endpoint, each hostile endpoint behind a loopback
// address of its own (a site of its own), for a little over one polling
// interval.
//
// The daemon may reach 127.0.1.0/24 (FEEDPOLLER_FETCH_ALLOW) and nothing
// else private: the hostile server's own address, 127.0.0.1, stays
// forbidden, so the redirect to localhost is refused exactly as on a
// production host, and Forbidden() counts it if it is not.
func TestHostileServers(t *testing.T) {
	h := hostile.New()
	t.Cleanup(h.Close)
	target := strings.TrimPrefix(h.URL(), "http://")

	dbURL := newDatabase(t)
	d := startDaemon(t, chaosEnv(dbURL,
		"FEEDPOLLER_POLLER_WORKERS="+strconv.Itoa(hostileWorkers), "FEEDPOLLER_POLLER_JITTER=0", "FEEDPOLLER_LOG_LEVEL=info",
		"FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=false", "FEEDPOLLER_FETCH_ALLOW="+aliasNet))
	sql := openDB(t, dbURL)
	ws := sql.workspace("chaos")

	healthySite := newAlias(t, target)
	healthy := make([]int64, healthyFeeds)
	due1 := map[int64]time.Time{}
	for n := range healthy {
		id, due := sql.addSource(ws, newSource{url: healthySite.URL() + "/healthy/" + strconv.Itoa(n)})
		healthy[n], due1[id] = id, due
	}
	endpoints := h.Endpoints()
	hostileIDs := map[string]int64{}
	for _, e := range endpoints {
		site := newAlias(t, target)
		id, _ := sql.addSource(ws, newSource{url: site.URL() + "/" + e.Name, sourceType: e.SourceType})
		hostileIDs[e.Name] = id
	}
	t.Logf("%d healthy feeds and %d hostile sources registered", len(healthy), len(endpoints))

	// Watch until every healthy feed has been polled twice (the second
	// time because it came due again after its 1-minute interval) and every
	// hostile source has an outcome. Each feed's second due time is read
	// after its first poll, before the second claim moves it.
	due2 := map[int64]time.Time{}
	var peakSeen int64
	ok := eventually(4*time.Minute, func() bool {
		if !d.Alive() {
			return true
		}
		if _, cur, err := PeakRSS(d.PID()); err == nil {
			peakSeen = max(peakSeen, cur)
		}
		done := true
		for _, id := range healthy {
			runs := len(sql.runs(id))
			if _, seen := due2[id]; !seen && runs == 1 {
				if s := sql.source(id); s.LeaseOwner == "" {
					due2[id] = s.NextPollAt
				}
			}
			if runs < 2 {
				done = false
			}
		}
		for _, id := range hostileIDs {
			if !sql.source(id).LastPolledAt.Valid {
				done = false
			}
		}
		return done
	})
	if !d.Alive() {
		t.Fatalf("the daemon died: %v", d.Err())
	}
	if !ok {
		t.Errorf("not every source was polled within the time allowed")
	}
	if !d.Healthy() {
		t.Errorf("the daemon no longer answers /healthz")
	}
	checkNoPanic(t, d)

	t.Run("healthy feeds polled on schedule", func(t *testing.T) {
		var lag1, lag2 []time.Duration
		for _, id := range healthy {
			s := sql.source(id)
			runs := sql.runs(id)
			if s.ConsecutiveFailures != 0 || (s.Status != "ok" && s.Status != "not_modified") || s.Error != "" {
				t.Errorf("healthy source %d: status %q, %d failures, error %q", id, s.Status, s.ConsecutiveFailures, s.Error)
			}
			if arts := sql.int(`SELECT COUNT(*) FROM feed_articles WHERE feed_source_id = $1`, id); arts != hostile.HealthyItems {
				t.Errorf("healthy source %d: %d articles, want %d", id, arts, hostile.HealthyItems)
			}
			if len(runs) == 0 {
				continue
			}
			lag1 = append(lag1, runs[0].StartedAt.Sub(due1[id]))
			if d2, seen := due2[id]; seen && len(runs) >= 2 {
				lag2 = append(lag2, runs[1].StartedAt.Sub(d2))
			} else {
				t.Errorf("healthy source %d: polled %d times, its second due time %v", id, len(runs), d2)
			}
		}
		if len(lag1) == 0 {
			t.Fatal("no healthy feed was polled")
		}
		p50a, p99a, maxA := quantile(lag1, 0.5), quantile(lag1, 0.99), quantile(lag1, 1)
		t.Logf("first round (all %d sources due at once): lag p50 %v, p99 %v, max %v over %d feeds",
			len(healthy)+len(endpoints), p50a.Round(time.Millisecond), p99a.Round(time.Millisecond), maxA.Round(time.Millisecond), len(lag1))
		if len(lag2) > 0 {
			p50b, p99b, maxB := quantile(lag2, 0.5), quantile(lag2, 0.99), quantile(lag2, 1)
			t.Logf("steady state (due again after the 1-minute interval): lag p50 %v, p99 %v, max %v over %d feeds",
				p50b.Round(time.Millisecond), p99b.Round(time.Millisecond), maxB.Round(time.Millisecond), len(lag2))
			// The lag figures are reported, not bounded: how late a poll
			// starts depends on how loaded the machine is. What does not
			// is that no source is polled before it is due.
			if early := quantile(lag2, 0); early < -time.Second {
				t.Errorf("a source was polled %v before it was due", -early)
			}
		}
	})

	t.Run("hostile sources end with the right outcome", func(t *testing.T) {
		for _, e := range endpoints {
			t.Run(e.Name, func(t *testing.T) {
				want, listed := hostileErrors[e.Name]
				if !listed {
					t.Fatalf("endpoint %s has no expected error in this suite (it does: %s)", e.Name, e.Does)
				}
				id := hostileIDs[e.Name]
				s := sql.source(id)
				runs := sql.runs(id)
				hits := h.Hits(e.Name)
				hops := max(hopsPerRequest[e.Name], 1)
				got := observedOutcome(s, hits, len(runs), hops)
				t.Logf("%s: status %q after %d polls (%d hits), failures %d, error %q", got, s.Status, len(runs), hits,
					s.ConsecutiveFailures, s.Error)
				allowed := false
				for _, o := range e.Outcomes {
					allowed = allowed || o == got
				}
				if !allowed {
					t.Fatalf("outcome %s, want one of %v (%s)", got, e.Outcomes, e.Expect)
				}
				switch got {
				case hostile.OutcomeOK:
					if s.ConsecutiveFailures != 0 || s.Error != "" {
						t.Errorf("a successful poll left %d failures and error %q", s.ConsecutiveFailures, s.Error)
					}
					checkHostileArticles(t, sql, e.Name, id)
					return
				case hostile.OutcomeTransient, hostile.OutcomePermanent:
					if s.ConsecutiveFailures < 1 || !s.IsActive {
						t.Errorf("a failed poll: %d consecutive failures, active %v; want at least 1, still active", s.ConsecutiveFailures, s.IsActive)
					}
					if got == hostile.OutcomePermanent && hits > int64(hops*len(runs)) {
						t.Errorf("%d hits in %d polls: a permanent failure was retried", hits, len(runs))
					}
				case hostile.OutcomeGone:
					if s.IsActive || len(runs) != 1 {
						t.Errorf("410: active %v after %d polls, want deactivated after the first", s.IsActive, len(runs))
					}
				case hostile.OutcomeRateLimited:
					if s.ConsecutiveFailures != 0 {
						t.Errorf("429 counted as %d failures, want a deferral", s.ConsecutiveFailures)
					}
					if earliest := s.LastPolledAt.Time.Add(hostile.RetryAfterSeconds*time.Second - time.Second); s.NextPollAt.Before(earliest) {
						t.Errorf("next poll %v, before Retry-After allows (%v)", s.NextPollAt, earliest)
					}
					if hits != int64(len(runs)) {
						t.Errorf("%d hits in %d polls: a long Retry-After must not be retried within the poll", hits, len(runs))
					}
				}
				if !want.MatchString(s.Error) {
					t.Errorf("error %q does not say what happened (want it to match %s)", s.Error, want)
				}
				if arts := sql.int(`SELECT COUNT(*) FROM feed_articles WHERE feed_source_id = $1`, id); arts != 0 {
					t.Errorf("a failed source stored %d articles", arts)
				}
			})
		}
	})

	t.Run("nothing reached a forbidden address", func(t *testing.T) {
		if n := h.Forbidden(); n != 0 {
			t.Errorf("%d requests reached /secret through the redirect to localhost", n)
		}
		// The metadata address is refused by the dial-time check (the
		// error above names it), before any connect(2): the daemon never
		// opened a connection to it.
		for _, name := range []string{"redirect-metadata", "redirect-metadata-mapped"} {
			if s := sql.source(hostileIDs[name]); !strings.Contains(s.Error, "169.254.169.254") || !strings.Contains(s.Error, " is not allowed (link-local)") {
				t.Errorf("%s: error %q does not show the address refused before dialling", name, s.Error)
			}
		}
	})

	t.Run("memory stayed bounded", func(t *testing.T) {
		peak, cur, err := PeakRSS(d.PID())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("daemon memory: peak RSS (VmHWM) %.1f MiB, now %.1f MiB, highest sampled %.1f MiB; bound %d MiB (4 × %d workers × 2 MiB body cap)",
			mib(peak), mib(cur), mib(peakSeen), memoryBound>>20, hostileWorkers)
		if peak > memoryBound {
			t.Errorf("peak RSS %.1f MiB is over the %d MiB bound", mib(peak), memoryBound>>20)
		}
	})
}

// checkHostileArticles checks what a hostile source that parsed stored:
// valid UTF-8, no expanded entities, no more items than the item cap.
func checkHostileArticles(t *testing.T, sql *db, name string, id int64) {
	t.Helper()
	ctx, cancel := sql.ctx()
	defer cancel()
	rows, err := sql.db.QueryContext(ctx, `SELECT title, content_markdown FROM feed_articles WHERE feed_source_id = $1`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var title, md string
		if err := rows.Scan(&title, &md); err != nil {
			t.Fatal(err)
		}
		n++
		if !utf8.ValidString(title) || !utf8.ValidString(md) {
			t.Errorf("article %q: invalid UTF-8 stored", title)
		}
		if len(title) > 1000 || strings.Count(md, "lol") > 1000 {
			t.Errorf("article title of %d bytes: an entity was expanded", len(title))
		}
		if name == "markup" && (strings.Contains(md, "javascript:") || strings.Contains(md, "<script") || strings.Contains(md, "<iframe")) {
			t.Errorf("article %q keeps markup that runs: %q", title, md)
		}
	}
	if n == 0 && name != "billion-laughs" {
		t.Errorf("a successful poll stored no article")
	}
	if n > 1000 {
		t.Errorf("%d articles from one feed: over the default item cap (1000)", n)
	}
}
