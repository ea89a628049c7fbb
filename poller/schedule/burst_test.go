package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// spread is n items published from end back over span, newest first.
func spread(end time.Time, n int, span time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = end.Add(-time.Duration(i) * span / time.Duration(max(n-1, 1)))
	}
	return out
}

// A poll that finds half or more of the listed items new is followed by
// one at the floor: the rest of the burst must not push items out of the
// feed. A source's first fetch, all of it new, is its history, not a
// burst.
func TestOverflowPollsAtTheFloor(t *testing.T) {
	now := monday
	s := steadyState(now.Add(-time.Hour), 0.5)
	s.Listed = 20
	for _, c := range []struct {
		name     string
		state    State
		new      int
		burst    bool
		reasonIs string
	}{
		{name: "12 of 20 new", state: s, new: 12, burst: true, reasonIs: "burst: 12 of 20 listed items new → 5m"},
		{name: "all 20 new", state: s, new: 20, burst: true, reasonIs: "burst: 20 of 20 listed items new → 5m"},
		{name: "9 of 20 new", state: s, new: 9},
		{name: "a first fetch lists its history", state: State{}, new: 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Observation{Outcome: Fetched, NewItems: c.new, Listed: 20, Published: spread(now, c.new, 50*time.Minute)}
			d, _ := Next(now, Config{}, c.state, o)
			if got := d.Kind == KindBurst; got != c.burst {
				t.Fatalf("burst %v, want %v (%q in %v)", got, c.burst, d.Reason, d.At.Sub(now))
			}
			if c.burst && (d.At.Sub(now) != DefaultFloor || d.Reason != c.reasonIs) {
				t.Errorf("next poll in %v (%q), want %v (%q)", d.At.Sub(now), d.Reason, DefaultFloor, c.reasonIs)
			}
		})
	}
	// The publisher's ttl still moves it later: hints only ever do.
	hinted := s
	hinted.Feed = FeedHints{TTL: 15 * time.Minute, HasTTL: true}
	d, _ := Next(now, Config{}, hinted, Observation{Outcome: Fetched, NewItems: 15, Listed: 20, Published: spread(now, 15, 30*time.Minute)})
	if d.At.Sub(now) != 15*time.Minute || d.Kind != KindTTL {
		t.Errorf("a burst under a ttl of 15m: next poll in %v (%q)", d.At.Sub(now), d.Reason)
	}
}

// A burst that filled half the feed is remembered: until it fades, the
// source is polled often enough that a burst as fast could not push
// items out of the feed unseen. A batch published at once is not a rate,
// and backdated items say nothing of when they appeared.
func TestPeakGuardsTheFeed(t *testing.T) {
	cfg := Config{}
	base := steadyState(monday, 0.1) // an item every ten hours
	base.Listed = 20
	quiet, _ := Next(monday.Add(time.Hour), cfg, base, Observation{Outcome: NotModified})
	quietIn := quiet.At.Sub(monday.Add(time.Hour))

	now := monday.Add(time.Hour)
	// 12 items within 30 minutes: 22 an hour.
	_, burst := Next(now, cfg, base, Observation{Outcome: Fetched, NewItems: 12, Listed: 20, Published: spread(now, 12, 30*time.Minute)})
	if burst.Peak < 20 || burst.Peak > 24 {
		t.Fatalf("peak %.1f/h after 12 items in 30 minutes, want 22", burst.Peak)
	}
	// A day later, with nothing new since: the guard holds the interval
	// to ¾ of 20 items at the (decayed) peak rate.
	day := now.Add(24 * time.Hour)
	d, _ := Next(day, cfg, burst, Observation{Outcome: NotModified})
	peak := burst.Peak * decay(24*time.Hour, peakHalfLife)
	want := time.Duration(peakGuard * 20 / peak * float64(time.Hour))
	if in := d.At.Sub(day); in > want+time.Minute || in < want-time.Minute || !strings.Contains(d.Reason, "bursts up to ~") {
		t.Errorf("a day after the burst: next poll in %v (%q), want %v by the guard (without the burst %v)", in, d.Reason, want, quietIn)
	}

	for _, c := range []struct {
		name  string
		items []time.Time
	}{
		{"a batch published at once", spread(now, 12, 0)},
		{"backdated items", spread(monday.Add(-48*time.Hour), 12, 30*time.Minute)},
	} {
		_, s := Next(now, cfg, base, Observation{Outcome: Fetched, NewItems: 12, Listed: 20, Published: c.items})
		if s.Peak != 0 {
			t.Errorf("%s set the peak to %.1f/h", c.name, s.Peak)
		}
	}
}

// No item waits more than two of the source's typical gaps: a busy source
// is polled more often than the square-root rule alone would.
func TestGapCap(t *testing.T) {
	now := monday
	s := steadyState(now, 6) // an item every 10 minutes
	cfg := Config{Jitter: 0.1}
	d, _ := Next(now, cfg, s, Observation{Outcome: NotModified})
	gaps := 2 / 1.1 / 6.0
	want := time.Duration(gaps * float64(time.Hour)) // 18m11s: two gaps, less the jitter's share
	if in := d.At.Sub(now); in < want-time.Second || in > want+time.Second || !strings.Contains(d.Reason, "within 2 gaps") {
		t.Errorf("next poll in %v (%q), want %v", in, d.Reason, want)
	}
}

// A declared ttl or syndication period that the feed's own publishing
// contradicts is cut to the time half the feed is replaced: it must not
// lose items. Cache headers are not: a copy in a cache does not change
// sooner for asking.
func TestDeclaredHintCutBeforeRollOver(t *testing.T) {
	s := steadyState(monday, 2) // 20 items roll over half in 5 hours
	s.Listed = 20
	s.Feed = FeedHints{TTL: 24 * time.Hour, HasTTL: true}
	d, _ := Next(monday, Config{}, s, Observation{Outcome: NotModified})
	if d.At.Sub(monday) != 5*time.Hour || d.Reason != "ttl 1440m, cut to 5h before the feed rolls over" || d.Kind != KindTTL {
		t.Errorf("ttl 24h on a feed half replaced in 5h: %v %q", d.At.Sub(monday), d.Reason)
	}
	s.Feed = FeedHints{}
	d, _ = Next(monday, Config{}, s, Observation{Outcome: NotModified, Hints: sources.Hints{MaxAge: dur(12 * time.Hour)}})
	if d.At.Sub(monday) != 12*time.Hour || d.Kind != KindCache {
		t.Errorf("max-age 12h: %v %q", d.At.Sub(monday), d.Reason)
	}
}
