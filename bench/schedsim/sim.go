package schedsim

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/poller/schedule"
)

// FeedLength is how many items a feed lists: an item that drops out
// before a poll sees it is missed.
const FeedLength = 20

// pushDelay is how long a WebSub delivery takes on its way.
const pushDelay = time.Second

// SourceResult is one source under one policy, over the measured week.
type SourceResult struct {
	Class string
	// Requests made in the week, and those that found nothing new.
	Requests, Empty int
	// Pushes are the items that arrived through WebSub.
	Pushes int
	// Latencies of the week's items that were found (publish → stored);
	// Missed are those never found (they left the feed before a poll, or
	// were not found by the end of the run-out day).
	Latencies []time.Duration
	Missed    int
	// Worst is the source's worst detection latency of the week over its
	// typical gap (the mean gap between its items of the week); +Inf when
	// an item was missed. Zero for sources with fewer than 3 items in the
	// week.
	Worst float64
	// Kinds counts the decisions by rule (the adaptive policies).
	Kinds map[schedule.Kind]int
	// StateBytes is the largest stored state seen.
	StateBytes int
}

// Run simulates every source under each policy, spread over the CPUs;
// results[p][i] is policy p on source i. Deterministic in seed.
func Run(srcs []*Source, policies []Policy, w Window, seed uint64) [][]SourceResult {
	out := make([][]SourceResult, len(policies))
	for p := range out {
		out[p] = make([]SourceResult, len(srcs))
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				for p, pol := range policies {
					out[p][i] = simulate(srcs[i], pol, w, seed)
				}
			}
		}()
	}
	for i := range srcs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// simulate polls one source from the warm-up to the run-out as pol
// decides, on a virtual clock.
func simulate(src *Source, pol Policy, w Window, seed uint64) SourceResult {
	srcSeed := seed ^ uint64(src.ID)*0x9e3779b97f4a7c15
	sch := pol.New(src, srcSeed)
	res := SourceResult{Class: src.Class}
	ev := src.Events
	seen := make([]bool, len(ev))
	measured := func(i int) bool { return !ev[i].Before(w.Start) && ev[i].Before(w.End) }
	latency := make([]time.Duration, len(ev))
	found := func(i int, at time.Time) {
		seen[i] = true
		latency[i] = at.Sub(ev[i])
		if measured(i) {
			res.Latencies = append(res.Latencies, latency[i])
		}
	}

	phase := time.Duration(rand.New(rand.NewPCG(srcSeed, 3)).Float64() * float64(30*time.Minute))
	t := w.WarmStart.Add(phase)
	push := sort.Search(len(ev), func(i int) bool { return !ev[i].Before(w.WarmStart) })
	var cdnFetched time.Time
	lastVisible := -1
	for t.Before(w.RunOut) {
		if pol.WebSub && src.Hub {
			for ; push < len(ev) && !ev[push].Add(pushDelay).After(t); push++ {
				if src.Lost[push] || seen[push] {
					continue
				}
				at := ev[push].Add(pushDelay)
				found(push, at)
				sch.Push(at, ev[push])
				if measured(push) {
					res.Pushes++
				}
			}
		}
		visibleAt := t
		var fresh time.Duration
		if src.MaxAge > 0 {
			if cdnFetched.IsZero() || t.Sub(cdnFetched) >= src.MaxAge {
				cdnFetched = t
			}
			visibleAt, fresh = cdnFetched, cdnFetched.Add(src.MaxAge).Sub(t)
		}
		visible := sort.Search(len(ev), func(i int) bool { return ev[i].After(visibleAt) })
		var published []time.Time
		for i := max(0, visible-FeedLength); i < visible; i++ {
			if !seen[i] {
				found(i, t)
				published = append(published, ev[i])
			}
		}
		obs := schedule.Observation{Outcome: schedule.NotModified, NewItems: len(published), Published: published,
			Subscribed: src.Hub, Listed: min(visible, FeedLength)}
		if visible != lastVisible {
			obs.Outcome, obs.Hints = schedule.Fetched, src.Hints
		}
		lastVisible = visible
		if src.MaxAge > 0 {
			obs.Hints.MaxAge = &fresh
		}
		if !t.Before(w.Start) && t.Before(w.End) {
			res.Requests++
			if len(published) == 0 {
				res.Empty++
			}
		}
		next := sch.Next(t, Poll{Obs: obs, MaxAge: src.MaxAge})
		t = later(next, t.Add(time.Second))
	}
	res.Missed, res.Worst = worst(ev, seen, latency, measured)
	if o, ok := sch.(*ours); ok {
		res.Kinds, res.StateBytes = o.kinds, o.maxText
	}
	return res
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// worst counts the week's missed items and finds the worst ratio of
// latency to the source's typical gap: the mean gap between its items of
// the week (see SourceResult.Worst).
func worst(ev []time.Time, seen []bool, latency []time.Duration, measured func(int) bool) (missed int, ratio float64) {
	var first, last time.Time
	var longest time.Duration
	n := 0
	for i := range ev {
		if !measured(i) {
			continue
		}
		if n == 0 {
			first = ev[i]
		}
		last = ev[i]
		n++
		if !seen[i] {
			missed++
			continue
		}
		longest = max(longest, latency[i])
	}
	if n < 3 || last.Equal(first) {
		return missed, 0
	}
	if missed > 0 {
		return missed, math.Inf(1)
	}
	return missed, float64(longest) / float64(last.Sub(first)/time.Duration(n-1))
}
