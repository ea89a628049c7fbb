package poller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/poller/schedule"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// withChannel is an RSS document whose channel declares extra elements
// (<ttl>, <skipHours>, ...).
func withChannel(extra string, entries ...entry) string {
	return strings.Replace(rssDoc("Hinted", entries...), "<link>https://news.example/</link>",
		"<link>https://news.example/</link>"+extra, 1)
}

// stored is what a poll left on its source: the interval it chose
// (next_poll_at − last_polled_at, both written by the poll's one save),
// the reason and its kind.
type stored struct {
	interval     time.Duration
	reason, kind string
	state        string
}

func (e *env) stored(src *model.FeedSource) stored {
	e.t.Helper()
	got, err := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	if got.LastPolledAt == nil {
		e.t.Fatalf("source %d was not polled", src.ID)
	}
	return stored{interval: got.NextPollAt.Sub(*got.LastPolledAt), reason: got.NextPollReason, kind: got.NextPollKind,
		state: got.ScheduleState}
}

// clockAt is tomorrow (UTC) at hh:mm, ticking from there: the hours the
// scheduling tests run at, whatever the machine's hour. Tomorrow, so that
// what a poll stores lies ahead of the database's real clock.
func clockAt(t *testing.T, hhmm string) func() time.Time {
	t.Helper()
	at, err := time.Parse("15:04", hhmm)
	if err != nil {
		t.Fatal(err)
	}
	y, m, d := time.Now().UTC().Date()
	return clockFrom(time.Date(y, m, d+1, at.Hour(), at.Minute(), 0, 0, time.UTC))
}

// clockFrom is a clock that reads start now and ticks in real time.
func clockFrom(start time.Time) func() time.Time {
	real0 := time.Now()
	return func() time.Time { return start.Add(time.Since(real0)) }
}

// testClocks are the times of day the scheduling tests run at: either
// side of noon (a window twelve hours ahead ends today or tomorrow) and
// either end of the day.
var testClocks = []string{"00:30", "11:59", "12:00", "23:30"}

// skipAllBut is a <skipHours> element skipping every hour but open.
func skipAllBut(open int) string {
	var skip strings.Builder
	skip.WriteString("<skipHours>")
	for h := range 24 {
		if h != open {
			fmt.Fprintf(&skip, "<hour>%d</hour>", h)
		}
	}
	skip.WriteString("</skipHours>")
	return skip.String()
}

// skipReason is the reason a poll at now gives for a skipHours window
// that opens at the next open:00: the time of day, with the weekday when
// that is not now's day.
func skipReason(now time.Time, open int) string {
	now = now.UTC()
	next := time.Date(now.Year(), now.Month(), now.Day(), open, 0, 0, 0, time.UTC)
	if !next.After(now) {
		next = next.Add(24 * time.Hour)
	}
	if next.YearDay() != now.YearDay() {
		return "skipHours until " + next.Format("Mon 15:04")
	}
	return "skipHours until " + next.Format("15:04")
}

// TestNextPollStoredWithReason: every poll stores when the source is
// polled next, why, the rule's kind and the scheduler's state, for each
// thing a publisher or a failure can say, at each of testClocks. Jitter
// is off in these pollers, so the intervals are exact.
func TestNextPollStoredWithReason(t *testing.T) {
	for _, hhmm := range testClocks {
		t.Run(hhmm, func(t *testing.T) { testNextPollStoredWithReason(t, hhmm) })
	}
}

// testNextPollStoredWithReason runs the cases with every poll decided at
// hhmm today (a fresh clock per case, so a slow run never crosses the
// hour the expectations were computed for).
func testNextPollStoredWithReason(t *testing.T, hhmm string) {
	clock := clockAt(t, hhmm)
	// Every hour is skipped but one twelve hours ahead: whatever the
	// adaptive interval (well under eleven hours), the poll moves there.
	open := (clock().UTC().Hour() + 12) % 24

	items := []entry{{"1", "https://news.example/1", "One", body("one")}, {"2", "https://news.example/2", "Two", body("two")}}
	// A feed of two items rolls over in one item's time, which a declared
	// ttl may not outlast (the ttl is cut to it); the ttl cases list 20,
	// so that the ttl, not the roll-over, is what they measure.
	full := make([]entry, 20)
	for i := range full {
		n := fmt.Sprint(i + 1)
		full[i] = entry{n, "https://news.example/" + n, "Item " + n, body("item " + n)}
	}
	cases := []struct {
		name    string
		doc     string
		mode    string
		prepare func(e *env, path string) // before the measured poll
		status  string
		reason  string // the reason starts with it
		kind    schedule.Kind
		min     time.Duration // the interval lies in [min, max]
		max     time.Duration
	}{
		{name: "ttl", doc: withChannel("<ttl>120</ttl>", full...), status: model.StatusOK,
			reason: "ttl 120m", kind: schedule.KindTTL, min: 120 * time.Minute, max: 120 * time.Minute},
		{name: "absurd ttl is clamped", doc: withChannel("<ttl>1000000000</ttl>", full...), status: model.StatusOK,
			// Bounded twice: by the ceiling, and by the time the feed's 20
			// items take to roll over at the rate assumed for a new source.
			reason: "ttl over 100 years, cut to ", kind: schedule.KindTTL, min: 4 * time.Hour, max: 24 * time.Hour},
		{name: "fixed ignores the ttl", doc: withChannel("<ttl>120</ttl>", items...), mode: model.ScheduleFixed,
			status: model.StatusOK, reason: "fixed 30m", kind: schedule.KindFixed, min: 30 * time.Minute, max: 30 * time.Minute},
		{name: "a new feed without dates starts from its interval", doc: rssDoc("Plain", items...), status: model.StatusOK,
			reason: "adaptive: ", kind: schedule.KindAdaptive, min: 30 * time.Minute, max: 60 * time.Minute},
		{name: "skipHours", doc: withChannel(skipAllBut(open), items...), status: model.StatusOK,
			reason: skipReason(clock(), open), kind: schedule.KindSkip},
		{name: "failure backs off", doc: rssDoc("Plain", items...), status: model.StatusError,
			prepare: func(e *env, path string) { e.feeds.fail(path, 500) },
			reason:  "backoff: 1 failure → 1h", kind: schedule.KindBackoff, min: time.Hour, max: time.Hour},
		{name: "429 with Retry-After defers", doc: rssDoc("Plain", items...), status: model.StatusDeferred,
			prepare: func(e *env, path string) { e.feeds.header(path, "Retry-After", "5400"); e.feeds.fail(path, 429) },
			reason:  "retry-after 1h", kind: schedule.KindRetryAfter, min: 89 * time.Minute, max: 90 * time.Minute},
		{name: "304 with Cache-Control max-age", doc: rssDoc("Plain", items...), status: model.StatusNotModified,
			prepare: func(e *env, path string) {
				e.pollNow(e.sourceAt(path)) // the 200 that gives the ETag
				e.feeds.header(path, "Cache-Control", "public, max-age=10800")
			},
			reason: "cache-control max-age 3h", kind: schedule.KindCache, min: 3 * time.Hour, max: 3 * time.Hour},
		{name: "WebSub subscription: safety poll", doc: rssDoc("Plain", items...), status: model.StatusNotModified,
			prepare: func(e *env, path string) {
				src := e.sourceAt(path)
				e.pollNow(src)
				e.store.DB().MustExec(e.store.DB().Rebind(`UPDATE feed_sources SET websub_subscribed_until = ? WHERE id = ?`),
					clock().Add(5*24*time.Hour).UTC(), src.ID)
			},
			reason: "websub: subscribed, safety poll → ", kind: schedule.KindWebSub, min: 30 * time.Minute, max: 24 * time.Hour},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, dialect, model.RelevanceProfile{})
				clock := clockAt(t, hhmm)
				e.poller = newPoller(t, e.store, "clock", func(o *poller.Options, f *fetch.Options) { o.Clock, f.Now = clock, clock })
				path := "/" + strings.ReplaceAll(tc.name, " ", "-")
				e.feeds.set(path, tc.doc)
				src := e.addSource(path)
				if tc.mode != "" {
					mode := tc.mode
					if _, err := e.store.UpdateSource(context.Background(), e.ws.ID, src.ID, model.SourcePatch{ScheduleMode: &mode}); err != nil {
						t.Fatal(err)
					}
				}
				if tc.prepare != nil {
					tc.prepare(e, path)
				}
				out := e.pollNow(src)
				if out.Status != tc.status {
					t.Fatalf("poll %+v, want status %s", out, tc.status)
				}
				got := e.stored(src)
				if !strings.HasPrefix(got.reason, tc.reason) || got.kind != string(tc.kind) {
					t.Errorf("reason %q (%s), want %q… (%s)", got.reason, got.kind, tc.reason, tc.kind)
				}
				if out.NextPollReason != got.reason {
					t.Errorf("outcome says %q, the source %q", out.NextPollReason, got.reason)
				}
				if tc.kind == schedule.KindSkip {
					// At the start of the open hour, 11 to 12 hours on.
					next := (*got.lastPolledAt(e, src)).Add(got.interval)
					if next.Hour() != open || next.Minute() != 0 || got.interval < 11*time.Hour || got.interval > 12*time.Hour {
						t.Errorf("skipHours: next poll at %s, %s after the poll; want %02d:00", next.Format(time.RFC3339), got.interval, open)
					}
				} else if got.interval < tc.min || got.interval > tc.max {
					t.Errorf("interval %s, want %s..%s (reason %q)", got.interval, tc.min, tc.max, got.reason)
				}
				if tc.status != model.StatusError && tc.status != model.StatusDeferred && got.state == "" {
					t.Error("no schedule state stored")
				}
			})
		}
	})
}

func (s stored) lastPolledAt(e *env, src *model.FeedSource) *time.Time {
	got, err := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	t := got.LastPolledAt.UTC()
	return &t
}

// sourceAt is the source added for path.
func (e *env) sourceAt(path string) *model.FeedSource {
	e.t.Helper()
	srcs, err := e.store.ListSources(context.Background(), e.ws.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, s := range srcs {
		if strings.HasSuffix(s.URL, path) {
			return &s
		}
	}
	e.t.Fatalf("no source for %s", path)
	return nil
}

// TestBackoffGrowsAndStateSurvives: consecutive failures double the
// interval from the adaptive one; the estimate learnt before the
// failures is kept through them, and a success schedules adaptively
// again.
func TestBackoffGrowsAndStateSurvives(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		e.feeds.set("/f", rssDoc("F", entry{"1", "https://news.example/1", "One", body("one")}))
		src := e.addSource("/f")
		e.pollNow(src)
		learnt := e.stored(src)
		if learnt.kind != string(schedule.KindAdaptive) || learnt.state == "" {
			t.Fatalf("after the first poll: %+v", learnt)
		}
		e.feeds.fail("/f", 503)
		for i, want := range []string{"backoff: 1 failure → ", "backoff: 2 failures → ", "backoff: 3 failures → "} {
			e.pollNow(src)
			got := e.stored(src)
			if !strings.HasPrefix(got.reason, want) || got.state != learnt.state {
				t.Fatalf("failure %d: %+v, want %q… and the state kept", i+1, got, want)
			}
			if want := learnt.interval << (i + 1); got.interval < want-time.Minute || got.interval > want+time.Minute {
				t.Errorf("failure %d: interval %s, want about %s", i+1, got.interval, want)
			}
		}
		e.feeds.fail("/f", 0)
		e.pollNow(src)
		if got := e.stored(src); got.kind != string(schedule.KindAdaptive) {
			t.Errorf("after recovery: %+v", got)
		}
	})
}

// TestNextPollDecisionsCounted: /metrics counts decisions by kind, every
// kind present from the start.
func TestNextPollDecisionsCounted(t *testing.T) {
	m, err := poller.NewMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range schedule.Kinds() {
		if n := testutil.ToFloat64(m.NextPolls.WithLabelValues(string(k))); n != 0 {
			t.Fatalf("kind %s starts at %v", k, n)
		}
	}
	if n := testutil.CollectAndCount(m.NextPolls); n != len(schedule.Kinds()) {
		t.Fatalf("%d series before any poll, want one per kind (%d)", n, len(schedule.Kinds()))
	}
	e := newEnv(t, "sqlite", model.RelevanceProfile{})
	e.poller = newPoller(t, e.store, "metrics", func(o *poller.Options, _ *fetch.Options) { o.Metrics = m })
	e.feeds.set("/ttl", withChannel("<ttl>90</ttl>", entry{"1", "https://news.example/1", "One", body("one")}))
	e.feeds.set("/bad", "")
	e.feeds.fail("/bad", 500)
	e.pollNow(e.addSource("/ttl"))
	e.pollNow(e.addSource("/bad"))
	for kind, want := range map[schedule.Kind]float64{schedule.KindTTL: 1, schedule.KindBackoff: 1, schedule.KindAdaptive: 0} {
		if n := testutil.ToFloat64(m.NextPolls.WithLabelValues(string(kind))); n != want {
			t.Errorf("%s decisions: %v, want %v", kind, n, want)
		}
	}
}
