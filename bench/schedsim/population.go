package schedsim

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// Epoch is the start of the measured week, a Monday 00:00 UTC.
var Epoch = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// Source is one simulated feed: when it publishes and what it declares.
type Source struct {
	ID    int
	Class string
	// Events are the publish times, sorted, from long before the warm-up
	// to the end of the run.
	Events []time.Time
	// Hints is what the feed body declares (FeedRead set).
	Hints sources.Hints
	// MaxAge is the freshness a CDN in front of the feed grants: a
	// request within MaxAge of the CDN's last fetch gets that copy.
	MaxAge time.Duration
	// Hub says the feed pushes through WebSub; Lost marks the events whose
	// push never arrives.
	Hub  bool
	Lost []bool
	// Intensity is the rate, items a day, of the events a poller cannot
	// foresee (see Bound): the publishing process's intensity; for a
	// bursty source its trickle and its bursts' starts, not the items that
	// follow a burst's first; for a waking source zero before it wakes.
	Intensity rate
	// PushedShare is the share of the source's items that WebSub pushes
	// (0 without a hub).
	PushedShare float64
}

// Mix is the share of each class in a population; the shares are
// normalised.
type Mix map[string]float64

// Realistic is the default mix, an assumption shaped after what is
// commonly reported of subscribed feeds: a quarter of the feeds silent
// for weeks, about 40 % publishing daily or more, about
// 40 % weekly or less, WebSub on a few per cent. The processes of each
// class are the same in every mix.
var Realistic = Mix{
	"quiet": 0.20, "steady": 0.30, "news": 0.08, "bursty": 0.04, "dormant": 0.25, "hinted": 0.11, "websub": 0.02,
}

// Active is the mix this simulation first assumed: few quiet feeds, a
// third of them with hints, a tenth with a hub. Kept as the busier
// alternative.
var Active = Mix{
	"steady": 0.35, "news": 0.12, "bursty": 0.08, "dormant": 0.20, "hinted": 0.15, "websub": 0.10,
}

// NewsHeavy is a harder mix for the sensitivity run: half the sources are
// active news feeds.
var NewsHeavy = Mix{
	"steady": 0.20, "news": 0.40, "bursty": 0.10, "dormant": 0.10, "hinted": 0.10, "websub": 0.10,
}

// Mixes are the named mixes of the command's -mix flag.
var Mixes = map[string]Mix{"realistic": Realistic, "active": Active, "news-heavy": NewsHeavy}

// Window is the simulated time: the policies start at WarmStart, requests
// and latencies count in [Start, End), polls go on until RunOut so that
// items published late in the week are found.
type Window struct {
	History, WarmStart, Start, End, RunOut time.Time
}

// DefaultWindow: 60 days of history, a week of warm-up, the measured week,
// a day of run-out.
func DefaultWindow() Window {
	return Window{History: Epoch.Add(-60 * day), WarmStart: Epoch.Add(-7 * day), Start: Epoch,
		End: Epoch.Add(7 * day), RunOut: Epoch.Add(8 * day)}
}

// Generate draws n sources of the mix, deterministic in seed.
func Generate(n int, mix Mix, seed uint64, w Window) []*Source {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range mix {
			if !yield(k) {
				return
			}
		}
	})
	var total float64
	for _, k := range names {
		total += mix[k]
	}
	out := make([]*Source, 0, n)
	at := 0.0
	for _, k := range names {
		at += mix[k] / total
		for len(out) < int(math.Round(at*float64(n))) {
			id := len(out)
			rng := rand.New(rand.NewPCG(seed, uint64(id)))
			out = append(out, generate(id, k, rng, w))
		}
	}
	return out
}

func generate(id int, class string, rng *rand.Rand, w Window) *Source {
	s := &Source{ID: id, Class: class, Hints: sources.Hints{FeedRead: true}}
	switch class {
	case "quiet":
		s.Intensity = flat(logUniform(rng, 0.02, 0.3))
		s.Events = poisson(rng, w.History, w.RunOut, s.Intensity)
	case "steady":
		s.Intensity = flat(logUniform(rng, 0.1, 20))
		s.Events = poisson(rng, w.History, w.RunOut, s.Intensity)
	case "news":
		s.Intensity = diurnal(rng, logUniform(rng, 5, 150))
		s.Events = poisson(rng, w.History, w.RunOut, s.Intensity)
	case "bursty":
		s.Events, s.Intensity = bursty(rng, w)
	case "dormant":
		s.Events, s.Intensity = dormant(rng, w)
		if len(s.Events) > 0 && s.Events[len(s.Events)-1].After(w.WarmStart) {
			s.Class = "dormant, wakes"
		} else {
			s.Class = "dormant, dead"
		}
	case "hinted":
		s.Events = hinted(rng, s, w)
	case "websub":
		s.Intensity = flat(logUniform(rng, 0.5, 50))
		s.Events = poisson(rng, w.History, w.RunOut, s.Intensity)
		s.Hub, s.PushedShare = true, 1-lostPushes
		s.Lost = make([]bool, len(s.Events))
		for i := range s.Lost {
			s.Lost[i] = rng.Float64() < lostPushes
		}
	}
	return s
}

// lostPushes is the share of WebSub deliveries that never arrive.
const lostPushes = 0.01

// rate is a publishing intensity, items a day, at a time.
type rate func(t time.Time) float64

func flat(perDay float64) rate { return func(time.Time) float64 { return perDay } }

// diurnal is a news desk in a time zone of its own: busy 07–22 local, a
// trickle at night, half as busy at weekends; mean perDay over a week.
func diurnal(rng *rand.Rand, perDay float64) rate {
	offsets := []int{-8, -5, -3, 0, 1, 2, 5, 8, 9}
	zone := time.FixedZone("", offsets[rng.IntN(len(offsets))]*3600)
	// Busy 15 h at 1, 9 h at 0.12; weekdays 1, weekends 0.5.
	norm := (15 + 9*0.12) / 24 * (5 + 2*0.5) / 7
	return func(t time.Time) float64 {
		l := t.In(zone)
		f := 0.12
		if h := l.Hour(); h >= 7 && h < 22 {
			f = 1
		}
		if wd := l.Weekday(); wd == time.Saturday || wd == time.Sunday {
			f *= 0.5
		}
		return perDay * f / norm
	}
}

// poisson draws a Poisson process of intensity r over [from, to) by
// thinning; r repeats weekly, so its peak is found in the first week.
func poisson(rng *rand.Rand, from, to time.Time, r rate) []time.Time {
	peak := 0.0
	for t := from; t.Before(from.Add(7 * day)); t = t.Add(time.Hour) {
		peak = max(peak, r(t))
	}
	if peak <= 0 {
		return nil
	}
	var out []time.Time
	for t := from; ; {
		t = t.Add(time.Duration(rng.ExpFloat64() / peak * float64(day)))
		if !t.Before(to) {
			return out
		}
		if rng.Float64()*peak < r(t) {
			out = append(out, t)
		}
	}
}

func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// bursty: a slow steady trickle, and two to five bursts a week of 5–40
// items within 20–120 minutes (a live blog, a release day). Its
// unforeseeable intensity is the trickle's and the bursts' starts'.
func bursty(rng *rand.Rand, w Window) ([]time.Time, rate) {
	trickle := logUniform(rng, 0.2, 2)
	out := poisson(rng, w.History, w.RunOut, flat(trickle))
	perWeek := 2 + rng.Float64()*3
	for _, start := range poisson(rng, w.History, w.RunOut, flat(perWeek/7)) {
		n := 5 + rng.IntN(36)
		span := time.Duration(20+rng.IntN(101)) * time.Minute
		for range n {
			if t := start.Add(time.Duration(rng.Float64() * float64(span))); t.Before(w.RunOut) {
				out = append(out, t)
			}
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out, flat(trickle + perWeek/7)
}

// dormant: 60% dead (a few items long ago, nothing since), 40% wake up
// during the measured week after weeks of silence.
func dormant(rng *rand.Rand, w Window) ([]time.Time, rate) {
	var out []time.Time
	if rng.Float64() < 0.6 {
		for range 3 + rng.IntN(8) {
			out = append(out, w.History.Add(-time.Duration(rng.Float64()*340*float64(day))))
		}
		slices.SortFunc(out, time.Time.Compare)
		return out, flat(0)
	}
	for range 2 + rng.IntN(5) {
		out = append(out, w.Start.Add(-20*day-time.Duration(rng.Float64()*40*float64(day))))
	}
	slices.SortFunc(out, time.Time.Compare)
	wake := w.Start.Add(time.Duration(rng.Float64() * 6 * float64(day)))
	perDay := logUniform(rng, 2, 20)
	awake := func(t time.Time) float64 {
		if t.Before(wake) {
			return 0
		}
		return perDay
	}
	return append(out, poisson(rng, wake, w.RunOut, flat(perDay))...), awake
}
