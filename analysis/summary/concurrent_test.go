package summary

import (
	"sync"
	"testing"

	"github.com/feedpoller/feedpoller/internal/storyfeeds"
)

// TestSummarizeConcurrent: summaries are computed in pooled scratch, and
// the daemon's workers summarise at once. Computed from eight goroutines,
// each article's summary is the one computed alone.
func TestSummarizeConcurrent(t *testing.T) {
	set, err := storyfeeds.Load("../stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(set))
	for i, a := range set {
		want[i] = Summarize(a.Markdown, Options{})
	}
	var wg sync.WaitGroup
	bad := make(chan int, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range set {
				i := (k*7 + g*13) % len(set)
				if got := Summarize(set[i].Markdown, Options{}); got != want[i] {
					bad <- i
					return
				}
			}
		})
	}
	wg.Wait()
	close(bad)
	for i := range bad {
		t.Errorf("article %d: its summary computed concurrently differs from the one computed alone", i)
	}
}
