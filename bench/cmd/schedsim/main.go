// Command schedsim compares scheduling policies on simulated feed
// sources over a virtual clock: fixed 30-minute polling (the daemon's
// fixed mode), Miniflux's entry-frequency rule and poller/schedule's
// adaptive policy, with and without WebSub pushes, all on the same
// publishing events. It prints the comparison as Markdown tables, and the
// bound on detection latency that no poller can beat with a third of
// fixed polling's requests. Nothing sleeps: a simulated week of 10 000
// sources takes a couple of minutes.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/bench/schedsim"
)

func main() {
	n := flag.Int("n", 10000, "number of sources")
	seed := flag.Uint64("seed", 1, "seed of the population and the jitter")
	mixName := flag.String("mix", "realistic", "population: "+strings.Join(slices.Sorted(func(yield func(string) bool) {
		for k := range schedsim.Mixes {
			if !yield(k) {
				return
			}
		}
	}), ", "))
	target := flag.Duration("target", 0, "adaptive policy's Target (0: the default)")
	balance := flag.Duration("balance", 0, "adaptive policy's Balance (0: the default)")
	flag.Parse()

	mix, ok := schedsim.Mixes[*mixName]
	if !ok {
		fmt.Fprintf(os.Stderr, "schedsim: -mix %q: want one of realistic, active, news-heavy\n", *mixName)
		os.Exit(2)
	}
	w := schedsim.DefaultWindow()
	start := time.Now()
	srcs := schedsim.Generate(*n, mix, *seed, w)
	policies := []schedsim.Policy{schedsim.Fixed(), schedsim.EntryFrequency(),
		schedsim.Adaptive(false, *target, *balance), schedsim.Adaptive(true, *target, *balance)}
	results := schedsim.Run(srcs, policies, w, *seed)
	rows := schedsim.Summarise(results, policies)
	fmt.Printf("%d sources (%s mix, seed %d), measured week %s – %s after a week of warm-up; %s wall time\n\n",
		*n, *mixName, *seed, w.Start.Format("2006-01-02"), w.End.Format("2006-01-02"), time.Since(start).Round(time.Second))
	fmt.Print(schedsim.Markdown(rows, policies))

	// What no poller can do with a third of fixed polling's requests.
	fixed := rows[0].Requests
	const within, share = 30 * time.Minute, 0.05
	fmt.Printf("\nBound on finding items within %s with %d requests (fixed 30m ÷ 3), by any poller that cannot foresee publication:\n\n",
		schedsim.Dur(within), fixed/3)
	for _, pushes := range []bool{false, true} {
		b := schedsim.Bound(srcs, w, fixed/3, within, pushes)
		need := schedsim.BudgetFor(srcs, w, within, pushes, share)
		label := "without WebSub"
		if pushes {
			label = "with WebSub"
		}
		fmt.Printf("- %s: at least %.1f %% of the %d items later than %s (p95 ≤ %s allows %.0f %%); that needs at least %d requests (fixed ÷ %.2f)\n",
			label, 100*b.LateShare, b.Items, schedsim.Dur(within), schedsim.Dur(within), 100*share, need, float64(fixed)/float64(max(need, 1)))
	}
}
