package schedsim

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/poller/schedule"
)

// Row sums up one policy over a class of sources (Class "all": every
// source).
type Row struct {
	Policy, Class   string
	Sources, Items  int
	Requests, Empty int
	Pushes          int
	// P50 and P95 are over every item of the week, a missed one counting
	// as later than any found; Max is over the items found.
	P50, P95, Max time.Duration
	Missed        int
	// Late is how many items were found later than LateAfter, or missed.
	Late int
	// Active are the sources with at least 3 items in the week; Starved
	// those of them whose worst detection latency exceeds twice their
	// mean gap, or that missed an item. Worst is the largest ratio.
	Active, Starved int
	Worst           float64
	Kinds           map[schedule.Kind]int
	StateBytes      int
}

// Summarise makes one row per policy and class, the "all" rows first.
func Summarise(results [][]SourceResult, policies []Policy) []Row {
	classes := map[string]bool{}
	for _, r := range results[0] {
		classes[r.Class] = true
	}
	names := append([]string{"all"}, slices.Sorted(func(yield func(string) bool) {
		for c := range classes {
			if !yield(c) {
				return
			}
		}
	})...)
	var rows []Row
	for _, class := range names {
		for p, pol := range policies {
			rows = append(rows, summarise(pol.Name, class, results[p]))
		}
	}
	return rows
}

func summarise(policy, class string, rs []SourceResult) Row {
	row := Row{Policy: policy, Class: class, Kinds: map[schedule.Kind]int{}}
	var lat []time.Duration
	for _, r := range rs {
		if class != "all" && r.Class != class {
			continue
		}
		row.Sources++
		row.Items += len(r.Latencies) + r.Missed
		row.Requests += r.Requests
		row.Empty += r.Empty
		row.Pushes += r.Pushes
		row.Missed += r.Missed
		lat = append(lat, r.Latencies...)
		for k, n := range r.Kinds {
			row.Kinds[k] += n
		}
		row.StateBytes = max(row.StateBytes, r.StateBytes)
		if r.Worst > 0 {
			row.Active++
			row.Worst = max(row.Worst, r.Worst)
			if r.Worst > 2 {
				row.Starved++
			}
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		row.Max = lat[len(lat)-1]
	}
	for _, l := range lat {
		if l > LateAfter {
			row.Late++
		}
	}
	row.Late += row.Missed
	for range row.Missed {
		lat = append(lat, missedLatency)
	}
	row.P50, row.P95 = rank(lat, 0.50), rank(lat, 0.95)
	return row
}

// LateAfter is the detection latency the report counts items beyond:
// fixed 30-minute polling's.
const LateAfter = 30 * time.Minute

// missedLatency stands for an item never found in the percentiles.
const missedLatency = time.Duration(1<<63 - 1)

// rank is the nearest-rank percentile of sorted values.
func rank(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*q+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Markdown writes the rows as the tables of bench/README.md.
func Markdown(rows []Row, policies []Policy) string {
	var b strings.Builder
	base := map[string]int{}
	for _, r := range rows {
		if r.Policy == policies[0].Name {
			base[r.Class] = r.Requests
		}
	}
	b.WriteString("| class | policy | sources | items | requests | ÷ " + policies[0].Name +
		" | per source-week | found nothing | latency p50 | p95 | max | > " + Dur(LateAfter) + " | missed | starved (of active) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		ratio := "–"
		if r.Requests > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(base[r.Class])/float64(r.Requests))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s | %.1f | %.0f%% | %s | %s | %s | %.1f%% | %d | %d of %d |\n",
			r.Class, r.Policy, r.Sources, r.Items, r.Requests, ratio,
			float64(r.Requests)/float64(max(r.Sources, 1)), 100*float64(r.Empty)/float64(max(r.Requests, 1)),
			Dur(r.P50), Dur(r.P95), Dur(r.Max), 100*float64(r.Late)/float64(max(r.Items, 1)), r.Missed, r.Starved, r.Active)
	}
	for _, r := range rows {
		if r.Class != "all" || len(r.Kinds) == 0 {
			continue
		}
		var total int
		for _, n := range r.Kinds {
			total += n
		}
		fmt.Fprintf(&b, "\n%s: next-poll reasons", r.Policy)
		for _, k := range schedule.Kinds() {
			if n := r.Kinds[k]; n > 0 {
				fmt.Fprintf(&b, " · %s %.1f%%", k, 100*float64(n)/float64(total))
			}
		}
		fmt.Fprintf(&b, "; pushes %d; largest stored state %d bytes\n", r.Pushes, r.StateBytes)
	}
	return b.String()
}

// Dur writes a latency compactly: "1s", "14m", "2h05m"; a missed item's
// is "missed".
func Dur(d time.Duration) string {
	switch {
	case d == missedLatency:
		return "missed"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Round(time.Minute)/time.Minute))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
