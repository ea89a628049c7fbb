package schedule

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// todaysNextPoll is the poller's rule before this package, as it stood in
// the poller before it called this package: the interval stretched by 2^failures, capped at
// MaxBackoff (or the interval, when longer), jitter included.
func todaysNextPoll(now time.Time, base time.Duration, failures int, jitter, r float64, maxBackoff time.Duration) time.Time {
	interval := base
	if failures > 0 {
		backoff := interval
		for i := 0; i < failures && backoff < maxBackoff; i++ {
			backoff *= 2
		}
		interval = max(interval, min(backoff, maxBackoff))
	}
	if jitter > 0 {
		interval += time.Duration(r * jitter * float64(interval))
	}
	if failures > 0 {
		interval = min(interval, max(base, maxBackoff))
	}
	return now.Add(interval)
}

func TestBackoffKeepsTodaysRule(t *testing.T) {
	for _, base := range []time.Duration{time.Minute, 30 * time.Minute, 360 * time.Minute, 48 * time.Hour} {
		for failures := 1; failures <= 12; failures++ {
			for _, r := range []float64{0, 0.5, 0.999} {
				name := fmt.Sprintf("base %v, %d failures, rand %v", base, failures, r)
				cfg := Config{Mode: Fixed, Base: base, Jitter: 0.1, Rand: func() float64 { return r }}
				d, _ := Next(monday, cfg, State{}, Observation{Outcome: Failed, Failures: failures})
				want := todaysNextPoll(monday, base, failures, 0.1, r, DefaultMaxBackoff)
				if !d.At.Equal(want) {
					t.Errorf("%s: next poll %v, today's rule %v", name, d.At.Sub(monday), want.Sub(monday))
				}
				if d.Kind != KindBackoff || !strings.HasPrefix(d.Reason, "backoff: ") {
					t.Errorf("%s: %s %q", name, d.Kind, d.Reason)
				}
			}
		}
	}
	// The success path is today's too: the interval plus jitter.
	cfg := Config{Mode: Fixed, Base: 30 * time.Minute, Jitter: 0.1, Rand: func() float64 { return 0.5 }}
	d, _ := Next(monday, cfg, State{}, Observation{Outcome: Fetched})
	if want := todaysNextPoll(monday, 30*time.Minute, 0, 0.1, 0.5, DefaultMaxBackoff); !d.At.Equal(want) {
		t.Errorf("success: next poll %v, today's rule %v", d.At.Sub(monday), want.Sub(monday))
	}
}

func TestFailuresAndDeferrals(t *testing.T) {
	fixed := Config{Mode: Fixed, Base: 30 * time.Minute}
	cases := []struct {
		name   string
		cfg    Config
		obs    Observation
		wantIn time.Duration
		kind   Kind
		reason string
	}{
		{"one failure", fixed, Observation{Outcome: Failed, Failures: 1}, time.Hour, KindBackoff, "backoff: 1 failure → 1h"},
		{"three failures", fixed, Observation{Outcome: Failed, Failures: 3}, 4 * time.Hour, KindBackoff,
			"backoff: 3 failures → 4h"},
		{"backoff capped at MaxBackoff", fixed, Observation{Outcome: Failed, Failures: 9}, 24 * time.Hour, KindBackoff,
			"backoff: 9 failures → 24h"},
		{"a later Retry-After wins", fixed,
			Observation{Outcome: Failed, Failures: 1, RetryAfter: monday.Add(6 * time.Hour)}, 6 * time.Hour,
			KindRetryAfter, "retry-after 6h (1 failure)"},
		{"an earlier Retry-After does not shorten the backoff", fixed,
			Observation{Outcome: Failed, Failures: 3, RetryAfter: monday.Add(time.Hour)}, 4 * time.Hour, KindBackoff,
			"backoff: 3 failures → 4h"},
		{"a Retry-After of days is capped", fixed,
			Observation{Outcome: Failed, Failures: 3, RetryAfter: monday.Add(72 * time.Hour)}, 24 * time.Hour,
			KindRetryAfter, "retry-after 72h, clamped to 24h (3 failures)"},
		{"rate limited: at the Retry-After", fixed,
			Observation{Outcome: Deferred, RetryAfter: monday.Add(10 * time.Minute), Cause: "rate limited"},
			10 * time.Minute, KindRetryAfter, "retry-after 10m (rate limited)"},
		{"a deferral's Retry-After may be sooner than the interval", fixed,
			Observation{Outcome: Deferred, RetryAfter: monday.Add(20 * time.Minute)}, 20 * time.Minute,
			KindRetryAfter, "retry-after 20m"},
		{"but never sooner than the floor", fixed,
			Observation{Outcome: Deferred, RetryAfter: monday.Add(90 * time.Second)}, 5 * time.Minute,
			KindRetryAfter, "retry-after 2m, raised to floor 5m"},
		{"Retry-After: 0 on a 503 waits for the floor", fixed,
			Observation{Outcome: Deferred, RetryAfter: monday, Cause: "rate limited"}, 5 * time.Minute,
			KindRetryAfter, "retry-after 0s, raised to floor 5m (rate limited)"},
		{"a Retry-After date already past waits for the floor", Config{},
			Observation{Outcome: Deferred, RetryAfter: monday.Add(-7 * time.Hour), Cause: "rate limited"}, 5 * time.Minute,
			KindRetryAfter, "retry-after 0s, raised to floor 5m (rate limited)"},
		{"a breaker's half-open wait of seconds waits for the floor", fixed,
			Observation{Outcome: Deferred, RetryAfter: monday.Add(30 * time.Second), Cause: "circuit half-open"}, 5 * time.Minute,
			KindRetryAfter, "retry-after 30s, raised to floor 5m (circuit half-open)"},
		{"a deferral without Retry-After of a one-minute source waits for the floor", Config{Mode: Fixed, Base: time.Minute},
			Observation{Outcome: Deferred, Cause: "circuit open"}, 5 * time.Minute, KindDeferred,
			"deferred (circuit open) → 5m"},
		{"a failure's past Retry-After leaves the backoff", fixed,
			Observation{Outcome: Failed, Failures: 1, RetryAfter: monday.Add(-7 * time.Hour)}, time.Hour, KindBackoff,
			"backoff: 1 failure → 1h"},
		{"deferred without Retry-After: the plain interval", fixed,
			Observation{Outcome: Deferred, Cause: "circuit open"}, 30 * time.Minute, KindDeferred,
			"deferred (circuit open) → 30m"},
		{"adaptive backs off from its own interval", Config{}, Observation{Outcome: Failed, Failures: 2},
			0, KindBackoff, "backoff: 2 failures → 3h17m"},
		{"gone: the plain interval, nothing learnt", fixed, Observation{Outcome: Skipped}, 30 * time.Minute,
			KindFixed, "fixed 30m"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := steadyState(monday, busy)
			d, after := Next(monday, c.cfg, s, c.obs)
			if d.Kind != c.kind || d.Reason != c.reason {
				t.Errorf("decision %s %q, want %s %q", d.Kind, d.Reason, c.kind, c.reason)
			}
			if c.wantIn != 0 && d.At.Sub(monday) != c.wantIn {
				t.Errorf("next poll in %v, want %v", d.At.Sub(monday), c.wantIn)
			}
			if after.Count != s.Count || !after.Updated.Equal(s.Updated) {
				t.Errorf("a poll that saw nothing changed the estimate: %+v → %+v", s, after)
			}
		})
	}
}

// A decision never places the next poll before the poll itself, and a
// retry (a deferral, a Retry-After) never sooner than the floor, whatever
// the Retry-After and however far the clock it was read against is from
// the decision's: seconds, hours or a year either way.
func TestRetryNeverBeforeTheFloor(t *testing.T) {
	skews := []time.Duration{-365 * 24 * time.Hour, -7 * time.Hour, -time.Minute, -time.Nanosecond, 0, time.Nanosecond,
		time.Second, 299 * time.Second, 5 * time.Minute, 7 * time.Hour, 365 * 24 * time.Hour}
	configs := map[string]Config{"adaptive": {}, "fixed 1m": {Mode: Fixed, Base: time.Minute},
		"fixed 30m, jitter": {Mode: Fixed, Base: 30 * time.Minute, Jitter: 0.5, Rand: func() float64 { return 0.99 }},
		"floor 10m":         {Floor: 10 * time.Minute}}
	for name, cfg := range configs {
		floor := cfg.withDefaults().Floor
		for _, skew := range skews {
			for _, o := range []Observation{
				{Outcome: Deferred, RetryAfter: monday.Add(skew)},
				{Outcome: Deferred, RetryAfter: monday.Add(skew), Cause: "rate limited"},
				{Outcome: Failed, Failures: 1, RetryAfter: monday.Add(skew)},
				{Outcome: Fetched, Hints: sources.Hints{RetryAfter: monday.Add(skew)}},
				{Outcome: NotModified, Hints: sources.Hints{RetryAfter: monday.Add(skew)}},
			} {
				d, _ := Next(monday, cfg, steadyState(monday, busy), o)
				in := d.At.Sub(monday)
				if in <= 0 {
					t.Errorf("%s, outcome %d, Retry-After %v from now: next poll %v from now (%q)", name, o.Outcome, skew, in, d.Reason)
				}
				if (o.Outcome == Deferred || d.Kind == KindRetryAfter) && in < floor {
					t.Errorf("%s, outcome %d, Retry-After %v from now: retry in %v, under the floor %v (%q)", name, o.Outcome, skew, in, floor, d.Reason)
				}
			}
		}
	}
}
