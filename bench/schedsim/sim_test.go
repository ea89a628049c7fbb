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
