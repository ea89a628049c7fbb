package summary

import (
	"testing"

	"github.com/feedpoller/feedpoller/internal/concurrent"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
)

// TestSummarizeConcurrent: summaries are computed in pooled scratch, and
// the daemon's workers summarise at once. Computed from several
// goroutines, each article's summary is the one computed alone.
func TestSummarizeConcurrent(t *testing.T) {
	set, err := storyfeeds.Load("../stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(set))
	for i, a := range set {
		want[i] = Summarize(a.Markdown, Options{})
	}
	concurrent.Same(t, len(set), func(i int) bool { return Summarize(set[i].Markdown, Options{}) == want[i] })
}
