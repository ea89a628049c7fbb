package schedsim

import (
	"slices"
	"time"
)

// BoundResult is what no poller can beat on a population (see Bound).
type BoundResult struct {
	// Budget is the requests allowed in the measured week.
	Budget int
	// Items are the week's items; Late is the least expected number of
	// them found later than the window, and LateShare Late ÷ Items.
	Items     int
	Late      float64
	LateShare float64
}

// Bound is a lower bound on the items any poller must find later than
// within, when it may make budget requests over the measured week and
// cannot foresee when items are published.
//
// A poll finds an item within the window only when the item was published
// in the window before the poll, so budget polls cover at most budget
// windows of a source's time. For a Poisson process of intensity λ(t),
// whatever the poller has seen so far says nothing of where the next
// items fall, so the items expected on time are at most the integral of
// λ over the windows covered, and the best any poller can do is to cover
// the windows of the highest expected items, over all sources at once.
// The bound hands the poller every advantage this leaves open: it knows
// each source's intensity exactly (its rhythm, when a dormant source
// wakes), the items of a burst after its first are free, pushed items
// are free (pushes: the sources with a hub push all but their lost
// items), no poll is needed for anything else (no ceiling), and the CDN
// delays of hinted sources are ignored. Windows are laid on a grid of
// within from the start of the week; every intensity here changes on the
// hour at most, so for windows of 30 minutes or whole hours the grid
// costs the poller nothing.
func Bound(srcs []*Source, w Window, budget int, within time.Duration, pushes bool) BoundResult {
	res := BoundResult{Budget: budget}
	var slots []float64
	for _, s := range srcs {
		for _, t := range s.Events {
			if !t.Before(w.Start) && t.Before(w.End) {
				res.Items++
			}
		}
		if s.Intensity == nil {
			continue
		}
		keep := 1.0
		if pushes && s.Hub {
			keep = 1 - s.PushedShare
		}
		for t := w.Start; t.Before(w.End); t = t.Add(within) {
			// Expected items in [t, t+within): the intensity is constant
			// over it (see above), so its middle stands for it.
			if e := keep * s.Intensity(t.Add(within/2)) * within.Hours() / 24; e > 0 {
				slots = append(slots, e)
			}
		}
	}
	slices.Sort(slots)
	uncovered := max(len(slots)-budget, 0)
	for _, e := range slots[:uncovered] {
		res.Late += e
	}
	if res.Items > 0 {
		res.LateShare = res.Late / float64(res.Items)
	}
	return res
}

// BudgetFor is the least budget at which Bound lets no more than share of
// the items be late: fewer requests cannot reach it, whatever the policy.
func BudgetFor(srcs []*Source, w Window, within time.Duration, pushes bool, share float64) int {
	lo, hi := 0, len(srcs)*int(w.End.Sub(w.Start)/within)
	for lo < hi {
		mid := (lo + hi) / 2
		if Bound(srcs, w, mid, within, pushes).LateShare <= share {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
