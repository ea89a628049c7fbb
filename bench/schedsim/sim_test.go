package schedsim

import (
	"reflect"
	"testing"
	"time"
)

// The simulator is deterministic, counts what it should, and the
// policies behave as their definitions say on a small population.
func TestSimulation(t *testing.T) {
	w := DefaultWindow()
	srcs := Generate(60, Realistic, 7, w)
	policies := []Policy{Fixed(), EntryFrequency(), Adaptive(true, 0, 0)}
	a := Run(srcs, policies, w, 7)
	b := Run(Generate(60, Realistic, 7, w), policies, w, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs with one seed differ")
	}
	rows := Summarise(a, policies)
	all := map[string]Row{}
	for _, r := range rows {
		if r.Class == "all" {
			all[r.Policy] = r
		}
	}
	fixed := all["fixed 30m"]
	// Every 30 minutes with up to 10% jitter: 305–336 requests a week.
	if per := float64(fixed.Requests) / float64(fixed.Sources); per < 300 || per > 340 {
		t.Errorf("fixed 30m made %.1f requests per source-week", per)
	}
	if fixed.Max > 33*time.Minute+time.Second {
		t.Errorf("fixed 30m found an item after %v", fixed.Max)
	}
	for name, r := range all {
		if r.Items == 0 || r.Requests == 0 {
			t.Errorf("%s: %d items, %d requests", name, r.Items, r.Requests)
		}
		if found := r.Items - r.Missed; found <= 0 {
			t.Errorf("%s found nothing", name)
		}
	}
	if ad := all["adaptive + WebSub"]; ad.Pushes == 0 || ad.Kinds["websub"] == 0 || ad.StateBytes == 0 {
		t.Errorf("adaptive + WebSub: %d pushes, kinds %v, state %d bytes", ad.Pushes, ad.Kinds, ad.StateBytes)
	}
	if ef := all["entry frequency"]; ef.Requests >= fixed.Requests {
		t.Errorf("entry frequency made %d requests, fixed %d", ef.Requests, fixed.Requests)
	}
	// Bursts are caught: the adaptive policy loses no more items than
	// fixed 30-minute polling.
	if ad := all["adaptive"]; ad.Missed > fixed.Missed {
		t.Errorf("adaptive missed %d items, fixed 30m %d", ad.Missed, fixed.Missed)
	}
	t.Logf("missed: fixed %d, entry frequency %d, adaptive %d", fixed.Missed, all["entry frequency"].Missed, all["adaptive"].Missed)
}

// The bound is one: no policy in the simulation does better than it with
// the requests that policy made, and it falls to nothing when every
// window can be covered.
func TestBound(t *testing.T) {
	w := DefaultWindow()
	srcs := Generate(200, Realistic, 3, w)
	policies := []Policy{Fixed(), EntryFrequency(), Adaptive(false, 0, 0), Adaptive(true, 0, 0)}
	rows := Summarise(Run(srcs, policies, w, 3), policies)
	for _, r := range rows[:len(policies)] {
		b := Bound(srcs, w, r.Requests, LateAfter, r.Policy == "adaptive + WebSub")
		if b.Items != r.Items {
			t.Fatalf("bound counts %d items, the run %d", b.Items, r.Items)
		}
		if got := float64(r.Late) / float64(r.Items); got < b.LateShare {
			t.Errorf("%s found %.1f%% of items late with %d requests, below the bound's %.1f%%",
				r.Policy, 100*got, r.Requests, 100*b.LateShare)
		}
	}
	all := len(srcs) * int(w.End.Sub(w.Start)/LateAfter)
	if b := Bound(srcs, w, all, LateAfter, false); b.Late != 0 {
		t.Errorf("with a poll for every window, %.1f items are late", b.Late)
	}
	if none := Bound(srcs, w, 0, LateAfter, false); none.LateShare < 0.5 {
		t.Errorf("without requests only %.0f%% of items are late", 100*none.LateShare)
	}
}

func TestEntryFrequencyFormula(t *testing.T) {
	now := Epoch
	cases := []struct {
		name      string
		published []time.Duration // before now
		want      time.Duration
	}{
		{"no entries", nil, 24 * time.Hour},
		{"one entry", []time.Duration{time.Hour}, 24 * time.Hour},
		{"an entry every 6 hours", []time.Duration{6 * time.Hour, 12 * time.Hour, 18 * time.Hour}, 6 * time.Hour},
		{"a burst is floored at 5 minutes", []time.Duration{time.Minute, 2 * time.Minute}, 5 * time.Minute},
		{"entries older than a week do not count", []time.Duration{8 * 24 * time.Hour, 9 * 24 * time.Hour}, 24 * time.Hour},
	}
	for _, c := range cases {
		e := &entryFrequency{}
		var obs Poll
		for _, d := range c.published {
			obs.Obs.Published = append(obs.Obs.Published, now.Add(-d))
		}
		if got := e.Next(now, obs).Sub(now); got != c.want {
			t.Errorf("%s: interval %v, want %v", c.name, got, c.want)
		}
	}
}
