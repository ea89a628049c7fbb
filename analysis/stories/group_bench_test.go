package stories

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkGroupPlace measures placing one new article (the term lookup
// of its index terms and the decision over the stories it finds) against
// an archive of 1 000, 10 000 and 100 000 articles of one workspace:
// "window" with the whole archive inside the story window (everything
// could match), "spread" with 1 000 articles a day, so the 7-day window
// holds 7 000. postings/op is how many index entries the lookup
// returned, stories/op how many stories it named (at most
// DefaultMaxCompared of them are compared in full), cpu-ms/op the CPU
// time of the process per placement. Computing the
// profile is left out (it does not depend on the archive; see
// BenchmarkProfile).
//
//	go test -run XXX -bench GroupPlace/window -benchtime 200x ./analysis/stories/ -args -group-sizes 1000,10000
func BenchmarkGroupPlace(b *testing.B) {
	end := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, layout := range []struct {
		name  string
		every time.Duration
	}{{"window", time.Second}, {"spread", 24 * time.Hour / 1000}} {
		b.Run(layout.name, func(b *testing.B) { benchGroupPlace(b, end, layout.every) })
	}
}

// groupSizes are the archive sizes BenchmarkGroupPlace builds, in
// order; a shorter list saves building the largest archive.
var groupSizes = flag.String("group-sizes", "1000,10000,100000", "archive sizes of BenchmarkGroupPlace")

func benchGroupPlace(b *testing.B, end time.Time, every time.Duration) {
	var sizes []int
	for f := range strings.SplitSeq(*groupSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("-group-sizes: %q is not a positive number", f)
		}
		sizes = append(sizes, n)
	}
	gen := newSynthArchive(b, 1)
	held := 0
	archive := make([]Arrival, 0, sizes[len(sizes)-1])
	for _, n := range sizes {
		for held < n {
			title, body := gen.Article()
			archive = append(archive, Arrival{Profile: NewProfile(title, body)})
			held++
		}
		// Oldest first, the newest reported just before end.
		for i := range archive {
			archive[i].At = end.Add(-time.Duration(len(archive)-i) * every)
		}
		mem, err := NewMemGroups(GroupOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		for i := 0; i < len(archive); i += 20 {
			if _, _, _, err := mem.Place(ctx, 1, archive[i:min(i+20, len(archive))]); err != nil {
				b.Fatal(err)
			}
		}
		queries := make([]Arrival, 64)
		qgen := newSynthArchive(b, 99)
		for i := range queries {
			title, body := qgen.Article()
			queries[i] = Arrival{Profile: NewProfile(title, body), At: end}
		}
		runtime.GC()
		b.Run(fmt.Sprintf("archive=%d", n), func(b *testing.B) {
			var postings, compared int
			i := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				_, found, err := mem.Decide(ctx, 1, []Arrival{q})
				if err != nil {
					b.Fatal(err)
				}
				postings += len(found.Postings)
				compared += len(found.Stories)
			}
			// CPU of the whole process (the garbage collector included):
			// on a shared machine wall time per op says more about the
			// neighbours than about the decision.
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(postings)/float64(b.N), "postings/op")
			b.ReportMetric(float64(compared)/float64(b.N), "stories/op")
		})
	}
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProfile measures computing a profile against the size of the
// article (MB/s is its throughput): alone (NewProfile, every word
// stemmed) and through stems the process already remembers, as the
// pipeline computes them (Stems).
func BenchmarkProfile(b *testing.B) {
	for _, words := range []int{100, 500, 2000, 8000} {
		text := synthText(b, words)
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				NewProfile("A headline of eight words for the bench", text)
			}
		})
		stems := NewStems(50000)
		stems.Profile("A headline of eight words for the bench", text)
		b.Run(fmt.Sprintf("stems/words=%d", words), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				stems.Profile("A headline of eight words for the bench", text)
			}
		})
	}
}
