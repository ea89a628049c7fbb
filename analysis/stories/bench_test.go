package stories

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/storyfeeds"
)

// newSynthArchive writes articles of one workspace's topic from the
// labelled story set's vocabulary.
func newSynthArchive(t testing.TB, seed uint64) *storyfeeds.Synth {
	set, err := storyfeeds.Load(storySetFile)
	if err != nil {
		t.Fatal(err)
	}
	return storyfeeds.NewSynth(set, seed)
}

// benchIndex adds synthetic articles from..n-1 of workspace 1 to idx,
// each its own story, article i reported i×every before end: grown
// newest first, the index always holds the newest n articles of one
// archive that ends at end.
func benchIndex(t testing.TB, gen *storyfeeds.Synth, idx *MemIndex, from, n int, end time.Time, every time.Duration) {
	for i := from; i < n; i++ {
		title, body := gen.Article()
		at := end.Add(-time.Duration(i+1) * every)
		idx.Add(1, int64(i+1), int64(i+1), at, Sign(title, body))
	}
}

// BenchmarkStoryAssign measures placing one new article (one index lookup
// and the decision over the candidates it returns) against archives of
// 1 000, 10 000 and 100 000 articles: "window" with the whole archive
// inside the story window (the worst case: everything is a possible
// match), "spread" with 1 000 articles a day, so the 7-day window holds
// at most 7 000 of them. candidates/op is how many stored signatures the
// lookup returned. Signing the new article is left out (it does not
// depend on the archive; see BenchmarkSign).
//
//	go test -run XXX -bench StoryAssign -benchtime 2000x ./stories/
func BenchmarkStoryAssign(b *testing.B) {
	end := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, layout := range []struct {
		name  string
		every time.Duration
	}{{"window", time.Second}, {"spread", 24 * time.Hour / 1000}} {
		gen := newSynthArchive(b, 1)
		idx := NewMemIndex()
		held := 0
		for _, n := range []int{1000, 10000, 100000} {
			benchIndex(b, gen, idx, held, n, end, layout.every)
			held = n
			counted := &countingIndex{Index: idx}
			c, err := NewClusterer(counted, Options{})
			if err != nil {
				b.Fatal(err)
			}
			queries := make([]Item, 64)
			qgen := newSynthArchive(b, 99)
			for i := range queries {
				title, body := qgen.Article()
				queries[i] = Item{Signature: Sign(title, body), At: end}
			}
			runtime.GC() // the archive's garbage is not the lookup's cost
			b.Run(fmt.Sprintf("%s/archive=%d", layout.name, n), func(b *testing.B) {
				ctx := context.Background()
				counted.n = 0
				i := 0
				for b.Loop() {
					q := queries[i%len(queries)]
					i++
					as, err := c.Assign(ctx, 1, []Item{q})
					if err != nil || len(as) != 1 {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(counted.n)/float64(b.N), "candidates/op")
			})
		}
	}
}

// BenchmarkSign measures computing a signature against the size of the
// article (MB/s is its throughput).
func BenchmarkSign(b *testing.B) {
	for _, words := range []int{100, 500, 2000, 8000} {
		text := synthText(b, words)
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				Sign("A headline of eight words for the bench", text)
			}
		})
	}
}

// synthText is a text of the given number of words from the synthetic
// archive's vocabulary.
func synthText(b *testing.B, words int) string {
	gen := newSynthArchive(b, 7)
	var fields []string
	for len(fields) < words {
		_, p := gen.Article()
		fields = append(fields, strings.Fields(p)...)
	}
	return strings.Join(fields[:words], " ")
}

// countingIndex counts the candidates an Index returns.
type countingIndex struct {
	Index
	n int
}

func (c *countingIndex) Candidates(ctx context.Context, ws int64, keys []int64, since time.Time) ([]Candidate, error) {
	got, err := c.Index.Candidates(ctx, ws, keys, since)
	c.n += len(got)
	return got, err
}
