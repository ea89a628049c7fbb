package schedule

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// run polls a source from start to end as the policy decides; publish
// says when items appear. It returns the last decision and state and the
// decisions made from `from` on.
func run(t *testing.T, cfg Config, s State, start, end time.Time, publish func(from, to time.Time) []time.Time) (Decision, State, []Decision) {
	t.Helper()
	var all []Decision
	var d Decision
	for now := start; now.Before(end); now = d.At {
		var items []time.Time
		if !s.Fresh() {
			items = publish(s.Updated, now)
		}
		o := Observation{Outcome: NotModified}
		if len(items) > 0 {
			o = Observation{Outcome: Fetched, NewItems: len(items), Published: items, Listed: 20}
		}
		d, s = Next(now, cfg, s, o)
		all = append(all, d)
	}
	return d, s, all
}

// every publishes an item every gap, on the grid from the epoch.
func every(gap time.Duration) func(from, to time.Time) []time.Time {
	return func(from, to time.Time) []time.Time {
		var out []time.Time
		for t := from.Truncate(gap).Add(gap); !t.After(to); t = t.Add(gap) {
			out = append(out, t)
		}
		return out
	}
}

func never(time.Time, time.Time) []time.Time { return nil }

func TestFirstPollReadsTheFeedsHistory(t *testing.T) {
	var items []time.Time
	for i := range 20 {
		items = append(items, monday.Add(-time.Duration(i)*12*time.Hour))
	}
	d, s := Next(monday, Config{}, State{}, Observation{Outcome: Fetched, NewItems: 20, Published: items, Listed: 20})
	rate := s.longRate() * 24
	if rate < 1.5 || rate > 3 {
		t.Errorf("rate from 20 items 12h apart = %.2f/day, want about 2", rate)
	}
	if in := d.At.Sub(monday); in < time.Hour || in > 4*time.Hour || !strings.Contains(d.Reason, "new/day") {
		t.Errorf("first decision in %v (%q), want a couple of hours", in, d.Reason)
	}

	// A feed whose newest item is a year old has been silent all along.
	old := []time.Time{monday.AddDate(-1, 0, 0), monday.AddDate(-1, -1, 0)}
	d, _ = Next(monday, Config{}, State{}, Observation{Outcome: Fetched, NewItems: 2, Published: old, Listed: 2})
	if in := d.At.Sub(monday); in < 6*time.Hour {
		t.Errorf("a feed silent for a year is polled again in %v (%q)", in, d.Reason)
	}
}

func TestNewSourceStartsAtBase(t *testing.T) {
	for _, base := range []time.Duration{30 * time.Minute, 360 * time.Minute} {
		d, _ := Next(monday, Config{Base: base}, State{}, Observation{Outcome: Skipped})
		if d.At.Sub(monday) != base || d.Reason != "adaptive: no history yet → "+fmtDur(base) {
			t.Errorf("base %v: %v %q", base, d.At.Sub(monday), d.Reason)
		}
		// A first fetch without dates starts from Base too.
		d, _ = Next(monday, Config{Base: base}, State{}, Observation{Outcome: Fetched, NewItems: 5})
		if in := d.At.Sub(monday); in < base*8/10 || in > base*2 {
			t.Errorf("base %v: first undated fetch → %v (%q)", base, in, d.Reason)
		}
	}
}

func TestDormancySlowsDown(t *testing.T) {
	cfg := Config{}
	d, s, _ := run(t, cfg, State{}, monday, monday.Add(5*24*time.Hour), every(time.Hour))
	active := d.At.Sub(s.Updated)
	quietFrom := s.Updated
	d, s, _ = run(t, cfg, s, quietFrom, quietFrom.Add(12*24*time.Hour), never)
	quiet := d.At.Sub(s.Updated)
	if quiet < 3*active {
		t.Errorf("after 12 quiet days the interval is %v, active it was %v: want it at least 3× longer", quiet, active)
	}
	if !strings.Contains(d.Reason, "quiet") {
		t.Errorf("reason %q does not say the source is quiet", d.Reason)
	}
	d, s, _ = run(t, cfg, s, s.Updated, quietFrom.Add(30*24*time.Hour), never)
	if in := d.At.Sub(s.Updated); in < 12*time.Hour {
		t.Errorf("after 30 quiet days the interval is %v (%q), want half a day or more", in, d.Reason)
	}
}

func TestBurstIsCaught(t *testing.T) {
	cfg := Config{}
	_, s, _ := run(t, cfg, State{}, monday, monday.Add(14*24*time.Hour), every(12*time.Hour))
	now := s.Updated.Add(2 * time.Hour)
	before, _ := Next(now, cfg, s, Observation{Outcome: NotModified})
	var burst []time.Time
	for i := range 8 {
		burst = append(burst, now.Add(-time.Duration(i)*5*time.Minute))
	}
	d, s2 := Next(now, cfg, s, Observation{Outcome: Fetched, NewItems: 8, Published: burst, Listed: 20})
	if in := d.At.Sub(now); in > 35*time.Minute || 4*in > before.At.Sub(now) || !strings.Contains(d.Reason, "burst") {
		t.Errorf("after a burst of 8 items in 35 minutes: next poll in %v (%q); without it %v",
			in, d.Reason, before.At.Sub(now))
	}
	// The burst fades: hours later, without more items, polls thin out again.
	later := now.Add(12 * time.Hour)
	d, _ = Next(later, cfg, s2, Observation{Outcome: NotModified})
	if in := d.At.Sub(later); in < time.Hour {
		t.Errorf("12 hours after the burst the source is still polled every %v (%q)", in, d.Reason)
	}
}

func TestWakingSourceSpeedsUp(t *testing.T) {
	cfg := Config{}
	old := []time.Time{monday.AddDate(0, -2, 0), monday.AddDate(0, -3, 0)}
	_, s := Next(monday, cfg, State{}, Observation{Outcome: Fetched, NewItems: 2, Published: old, Listed: 2})
	_, s, _ = run(t, cfg, s, monday.Add(time.Hour), monday.Add(7*24*time.Hour), never)
	now := s.Updated.Add(time.Hour)
	asleep, _ := Next(now, cfg, s, Observation{Outcome: NotModified})
	d, _ := Next(now, cfg, s, Observation{Outcome: Fetched, NewItems: 1, Published: []time.Time{now.Add(-10 * time.Minute)}, Listed: 3})
	if d.At.Sub(now)*3 > asleep.At.Sub(now) {
		t.Errorf("a dormant source that publishes again: next poll in %v, asleep it was %v", d.At.Sub(now), asleep.At.Sub(now))
	}
}

func TestRhythm(t *testing.T) {
	// Items every 20 minutes from 08:00 to 18:00 UTC on weekdays only.
	office := func(from, to time.Time) []time.Time {
		var out []time.Time
		for _, t := range every(20*time.Minute)(from, to) {
			if h, wd := t.Hour(), t.Weekday(); h >= 8 && h < 18 && wd != time.Saturday && wd != time.Sunday {
				out = append(out, t)
			}
		}
		return out
	}
	_, _, ds := run(t, Config{}, State{}, monday, monday.Add(22*24*time.Hour), office)
	// The intervals chosen during the last week's weekday hours.
	var day, night []time.Duration
	for i := 1; i < len(ds); i++ {
		at := ds[i-1].At // when decision i was made
		if at.Before(monday.Add(15*24*time.Hour)) || at.Weekday() == time.Saturday || at.Weekday() == time.Sunday {
			continue
		}
		switch h := at.Hour(); {
		case h >= 9 && h < 17:
			day = append(day, ds[i].At.Sub(at))
		case h >= 22 || h < 6:
			night = append(night, ds[i].At.Sub(at))
		}
	}
	if len(day) == 0 || len(night) == 0 {
		t.Fatalf("no decisions by day (%d) or by night (%d)", len(day), len(night))
	}
	if maxDay, minNight := slices.Max(day), slices.Min(night); minNight < 2*maxDay {
		t.Errorf("shortest night interval %v, longest office-hours interval %v: want the night at least twice as long",
			minNight, maxDay)
	}
}

func TestDeterministic(t *testing.T) {
	mk := func() Config {
		r := 0.0
		return Config{Jitter: 0.1, Rand: func() float64 { r += 0.37; return r - float64(int(r)) }}
	}
	_, a, da := run(t, mk(), State{}, monday, monday.Add(3*24*time.Hour), every(45*time.Minute))
	_, b, db := run(t, mk(), State{}, monday, monday.Add(3*24*time.Hour), every(45*time.Minute))
	if len(da) != len(db) || a != b {
		t.Fatalf("two runs on the same inputs differ: %d vs %d polls", len(da), len(db))
	}
	for i := range da {
		if da[i] != db[i] {
			t.Fatalf("decision %d differs: %+v vs %+v", i, da[i], db[i])
		}
	}
}
