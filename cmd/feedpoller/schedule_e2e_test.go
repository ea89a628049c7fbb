package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// hintSite serves feeds whose publishers say when to come back: the first
// request of each path (the validation of `sources add`) is always a
// plain 200; after it, a path answers as its behaviour says.
type hintSite struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]int
}

func newHintSite(t *testing.T, skipHours string) *hintSite {
	s := &hintSite{seen: map[string]int{}}
	// The feeds list 20 items: a feed of two rolls over in one item's
	// time, which a declared ttl may not outlast, and the ttl is what the
	// test reads.
	doc := func(host, channel string) string {
		var b strings.Builder
		fmt.Fprintf(&b, `<?xml version="1.0"?><rss version="2.0"><channel><title>Hinted</title><link>http://%s/</link>%s`, host, channel)
		for i := 1; i <= 20; i++ {
			fmt.Fprintf(&b, "\n<item><title>Post %d</title><link>http://%s/posts/%d</link><guid>p%d</guid><description>Post %d.</description></item>",
				i, host, i, i, i)
		}
		b.WriteString("\n</channel></rss>")
		return b.String()
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen[r.URL.Path]++
		n := s.seen[r.URL.Path]
		s.mu.Unlock()
		channel := ""
		switch r.URL.Path {
		case "/ttl.xml", "/fixed.xml":
			channel = "<ttl>120</ttl>"
		case "/skip.xml":
			channel = skipHours
		case "/missing.xml":
			if n > 1 {
				http.NotFound(w, r)
				return
			}
		case "/limited.xml":
			if n > 1 {
				w.Header().Set("Retry-After", "3600")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
		case "/cached.xml":
			if n > 2 {
				w.Header().Set("Cache-Control", "max-age=10800")
			}
		}
		body := doc(r.Host, channel)
		sum := md5.Sum([]byte(body))
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hintSite) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[path]
}

// schedRow is a source's scheduling columns as stored.
type schedRow struct {
	ID             int64      `db:"id"`
	URL            string     `db:"url"`
	Mode           string     `db:"schedule_mode"`
	Reason         string     `db:"next_poll_reason"`
	Kind           string     `db:"next_poll_kind"`
	NextPollAt     time.Time  `db:"next_poll_at"`
	LastPolledAt   *time.Time `db:"last_polled_at"`
	LastPolledStat string     `db:"last_polled_status"`
}

// interval is what the poll chose: next_poll_at − last_polled_at, both
// written by the poll's one save.
func (r schedRow) interval() time.Duration { return r.NextPollAt.Sub(*r.LastPolledAt) }

func schedRows(t *testing.T, st *store.Store) map[string]schedRow {
	t.Helper()
	var rows []schedRow
	if err := st.DB().Select(&rows, `SELECT id, url, schedule_mode, next_poll_reason, next_poll_kind, next_poll_at,
		last_polled_at, last_polled_status FROM feed_sources`); err != nil {
		t.Fatal(err)
	}
	out := map[string]schedRow{}
	for _, r := range rows {
		out[r.URL[strings.LastIndex(r.URL, "/")+1:]] = r
	}
	return out
}

// TestScheduleThroughTheBinary: the real binary stores every next poll
// with its reason, on both databases, and shows it in `sources list`, in
// the API's source representation and in /metrics. Intervals are checked
// as next_poll_at − last_polled_at against the jitter (10 % by default),
// never against a clock. The binary's scheduling clock starts at each of
// the times of day in testClocks (the tests' build reads it from
// FEEDPOLLER_TEST_CLOCK), so the skipHours window is checked on either
// side of noon and midnight whatever the machine's hour.
func TestScheduleThroughTheBinary(t *testing.T) {
	for _, hhmm := range testClocks {
		t.Run(hhmm, func(t *testing.T) { testScheduleThroughTheBinary(t, hhmm) })
	}
}

// testClocks are the times of day the scheduling tests run at.
var testClocks = []string{"00:30", "11:59", "12:00", "23:30"}

// clockStart is tomorrow (UTC) at hhmm: every time a poll stores lies
// ahead of the real clock that the database and a daemon started without
// this clock compare it with, so nothing polled at hhmm is due again
// during the test.
func clockStart(t *testing.T, hhmm string) time.Time {
	t.Helper()
	at, err := time.Parse("15:04", hhmm)
	if err != nil {
		t.Fatal(err)
	}
	y, m, d := time.Now().UTC().Date()
	return time.Date(y, m, d+1, at.Hour(), at.Minute(), 0, 0, time.UTC)
}

// skipReason is the reason a poll at now gives for a skipHours window
// opening at the next open:00: the time of day, with the weekday when
// that is not now's day.
func skipReason(now time.Time, open int) string {
	next := time.Date(now.Year(), now.Month(), now.Day(), open, 0, 0, 0, time.UTC)
	if !next.After(now) {
		next = next.Add(24 * time.Hour)
	}
	if next.YearDay() != now.YearDay() {
		return "skipHours until " + next.Format("Mon 15:04")
	}
	return "skipHours until " + next.Format("15:04")
}

func testScheduleThroughTheBinary(t *testing.T, hhmm string) {
	start := clockStart(t, hhmm)
	open := (start.Hour() + 12) % 24
	var skip strings.Builder
	skip.WriteString("<skipHours>")
	for h := range 24 {
		if h != open {
			fmt.Fprintf(&skip, "<hour>%d</hour>", h)
		}
	}
	skip.WriteString("</skipHours>")

	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			site := newHintSite(t, skip.String())
			dir := t.TempDir()
			dbURL := testdb.URL(t, dialect)
			// Each command's clock starts at hhmm afresh: the window's
			// opening hour stays the same however slow the run.
			env := quietEnv(dbURL, "FEEDPOLLER_FETCH_ATTEMPTS=1", "FEEDPOLLER_TEST_CLOCK="+start.Format(time.RFC3339))
			run := func(args ...string) string { t.Helper(); return mustCLI(t, dir, env, args...) }
			ws := strings.TrimSpace(run("workspaces", "add", "--name", "sched", "--quiet"))

			if out, err := cli(t, dir, env, "sources", "add", "--workspace", ws, "--url", site.URL+"/ttl.xml", "--schedule", "weekly"); err == nil ||
				!strings.Contains(out, "schedule") || !strings.Contains(out, "adaptive, fixed") {
				t.Fatalf("sources add --schedule weekly: %v %s; want a refusal naming schedule and its values", err, out)
			}
			if site.requests("/ttl.xml") != 0 {
				t.Fatal("a refused schedule still fetched the feed")
			}
			for _, name := range []string{"ttl", "skip", "missing", "limited", "cached"} {
				out := run("sources", "add", "--workspace", ws, "--url", site.URL+"/"+name+".xml")
				if !strings.Contains(out, "adaptive, starting at 30 min") {
					t.Fatalf("sources add %s: %s", name, out)
				}
			}
			if out := run("sources", "add", "--workspace", ws, "--url", site.URL+"/fixed.xml", "--schedule", "fixed"); !strings.Contains(out, "every 30 min") {
				t.Fatalf("sources add --schedule fixed: %s", out)
			}
			if out := run("sources", "list"); strings.Count(out, store.ReasonNew) != 6 {
				t.Fatalf("sources list before polling:\n%s", out)
			}

			if out := run("poll"); !strings.Contains(out, "6 sources polled") || !strings.Contains(out, "(ttl 120m)") {
				t.Fatalf("poll:\n%s", out)
			}
			st := openTestStore(t, env)
			rows := schedRows(t, st)
			// The cached feed's second poll is a 304 carrying max-age.
			run("poll", "--source", fmt.Sprint(rows["cached.xml"].ID))
			// A WebSub subscriber marks a verified subscription; the
			// safety poll follows.
			st.DB().MustExec(st.DB().Rebind(`UPDATE feed_sources SET websub_subscribed_until = ? WHERE id = ?`),
				time.Now().Add(10*24*time.Hour).UTC(), rows["ttl.xml"].ID)
			run("poll", "--source", fmt.Sprint(rows["ttl.xml"].ID))
			rows = schedRows(t, st)

			jit := func(d time.Duration) time.Duration { return d + d/10 }
			for _, c := range []struct {
				file, status, reason, kind string
				min, max                   time.Duration
			}{
				{"fixed.xml", "ok", "fixed 30m", "fixed", 30 * time.Minute, jit(30 * time.Minute)},
				{"missing.xml", "error", "backoff: 1 failure → ", "backoff", time.Hour, jit(time.Hour)},
				{"limited.xml", "deferred", "retry-after 1h (rate limited)", "retry_after", 59 * time.Minute, time.Hour},
				{"cached.xml", "not_modified", "cache-control max-age 3h", "cache", 3 * time.Hour, jit(3 * time.Hour)},
				{"ttl.xml", "not_modified", "websub: subscribed, safety poll → ", "websub", 5 * time.Minute, jit(24 * time.Hour)},
				{"skip.xml", "ok", skipReason(start, open), "skip", 10 * time.Hour, 12*time.Hour + 6*time.Minute},
			} {
				r := rows[c.file]
				if r.LastPolledStat != c.status || !strings.HasPrefix(r.Reason, c.reason) || r.Kind != c.kind {
					t.Errorf("%s: status %s, reason %q (%s); want %s, %q… (%s)", c.file, r.LastPolledStat, r.Reason, r.Kind, c.status, c.reason, c.kind)
				}
				if iv := r.interval(); iv < c.min || iv > c.max {
					t.Errorf("%s: next poll %s after the poll, want %s..%s (%s)", c.file, iv, c.min, c.max, r.Reason)
				}
			}
			if next := rows["skip.xml"].NextPollAt.UTC(); next.Hour() != open || next.Minute() > 6 {
				t.Errorf("skipHours: next poll at %s, want the start of %02d:00", next.Format(time.RFC3339), open)
			}
			list := run("sources", "list")
			for file, r := range rows {
				line := regexp.MustCompile(`(?m)^` + fmt.Sprint(r.ID) + ` .*$`).FindString(list)
				if !strings.Contains(line, r.Reason) || !strings.Contains(line, r.NextPollAt.UTC().Format(listTime)) ||
					!strings.Contains(line, " "+r.Mode+" ") || !strings.HasSuffix(line, file) {
					t.Errorf("sources list shows %q for %s, want its mode %s, next poll %s and reason %q", line, file, r.Mode,
						r.NextPollAt.UTC().Format(listTime), r.Reason)
				}
			}

			// Pinned to fixed, then set back to adaptive: the ttl counts again.
			fixed := fmt.Sprint(rows["fixed.xml"].ID)
			if out := run("sources", "set", fixed, "--schedule", "adaptive"); !strings.Contains(out, "adaptive, starting at 30 min") {
				t.Fatalf("sources set --schedule adaptive: %s", out)
			}
			if out := run("poll", "--source", fixed); !strings.Contains(out, "(ttl 120m)") {
				t.Fatalf("poll of the source set adaptive: %s", out)
			}
			if out, err := cli(t, dir, env, "sources", "set", fixed, "--schedule", "sometimes"); err == nil || !strings.Contains(out, "schedule") {
				t.Fatalf("sources set --schedule sometimes: %v %s", err, out)
			}

			// The daemon: the API shows the reason, PATCH and POST take a
			// schedule, /metrics counts decisions by kind.
			const token = "sched-admin-token"
			d := startDaemon(t, dir, baseEnv(dbURL, "FEEDPOLLER_ADMIN_TOKEN="+token,
				"FEEDPOLLER_POLLER_SCHEDULE=@every 1s"))
			wsPath := "/api/intelligence/workspaces/" + ws
			_, view := d.call(t, token, "GET", fmt.Sprintf("%s/sources/%d", wsPath, rows["cached.xml"].ID), nil)
			if view["next_poll_reason"] != "cache-control max-age 3h" || view["next_poll_kind"] != "cache" || view["schedule"] != "adaptive" {
				t.Fatalf("GET source: %v", view)
			}
			code, view := d.call(t, token, "PATCH", fmt.Sprintf("%s/sources/%d", wsPath, rows["cached.xml"].ID), map[string]any{"schedule": "fixed"})
			if code != 200 || view["schedule"] != "fixed" {
				t.Fatalf("PATCH schedule fixed: %d %v", code, view)
			}
			if code, body := d.call(t, token, "POST", wsPath+"/sources", map[string]any{"url": site.URL + "/new.xml", "schedule": "hourly"}); code != 400 ||
				!strings.Contains(fmt.Sprint(body), "schedule") {
				t.Fatalf("POST with schedule hourly: %d %v", code, body)
			}
			code, created := d.call(t, token, "POST", wsPath+"/sources", map[string]any{"url": site.URL + "/new.xml", "schedule": "fixed"})
			if code != 201 || created["schedule"] != "fixed" || created["next_poll_reason"] != store.ReasonNew {
				t.Fatalf("POST with schedule fixed: %d %v", code, created)
			}
			// The new source is due at once; the daemon's poll counts one
			// fixed decision.
			metric := `feedpoller_next_poll_decisions_total{kind="fixed"} 1`
			var text string
			for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				if text = d.metrics(t); strings.Contains(text, metric) {
					break
				}
			}
			if !strings.Contains(text, metric) || !strings.Contains(text, `feedpoller_next_poll_decisions_total{kind="websub"} 0`) {
				t.Fatalf("/metrics lacks %s or the websub series at 0:\n%s", metric, grepLines(text, "next_poll"))
			}
			_, view = d.call(t, token, "GET", fmt.Sprintf("%s/sources/%v", wsPath, created["id"]), nil)
			if view["next_poll_reason"] != "fixed 30m" || view["next_poll_kind"] != "fixed" {
				t.Fatalf("the new source after the daemon's poll: %v", view)
			}
			if err := d.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// metrics reads the daemon's /metrics.
func (d daemon) metrics(t *testing.T) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", d.Base+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grepLines(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
