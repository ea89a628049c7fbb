// Command schedsim compares scheduling policies on simulated feed
// sources over a virtual clock: fixed 30-minute polling (today's daemon),
// Miniflux's entry-frequency rule and poller/schedule's adaptive policy,
// with and without WebSub pushes, all on the same publishing events. It
// prints the comparison as Markdown tables. Nothing sleeps: a simulated
// week of 10 000 sources takes seconds.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/feedpoller/feedpoller/bench/schedsim"
)

func main() {
	n := flag.Int("n", 10000, "number of sources")
	seed := flag.Uint64("seed", 1, "seed of the population and the jitter")
	mixName := flag.String("mix", "realistic", "population: realistic or news-heavy")
	target := flag.Duration("target", 0, "adaptive policy's Target (0: the default)")
	balance := flag.Duration("balance", 0, "adaptive policy's Balance (0: the default)")
	flag.Parse()

	mix := schedsim.Realistic
	switch *mixName {
	case "realistic":
	case "news-heavy":
		mix = schedsim.NewsHeavy
	default:
		fmt.Fprintf(os.Stderr, "schedsim: -mix %q: want realistic or news-heavy\n", *mixName)
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
}
