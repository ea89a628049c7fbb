package stories

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/feedpoller/feedpoller/internal/storyfeeds"
)

// TestProfileConcurrent: profiles are made from pooled scratch, and the
// daemon's workers make them at once. Made from eight goroutines, each
// article's profile is the one made alone, and a profile handed out
// earlier is not changed by the ones made after it.
func TestProfileConcurrent(t *testing.T) {
	set, err := storyfeeds.Load(storySetFile)
	if err != nil {
		t.Fatal(err)
	}
	stems := NewStems(10000)
	want := make([]Profile, len(set))
	kept := make([]Profile, len(set))
	for i, a := range set {
		want[i] = stems.Profile(a.Title, a.Markdown)
		kept[i] = Profile{Features: slices.Clone(want[i].Features), Words: slices.Clone(want[i].Words)}
	}
	var wg sync.WaitGroup
	bad := make(chan int, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range set {
				i := (k*7 + g*13) % len(set)
				// Half the goroutines share the stems' memo, half stem
				// every word themselves: both give one profile.
				got := NewProfile(set[i].Title, set[i].Markdown)
				if g%2 == 0 {
					got = stems.Profile(set[i].Title, set[i].Markdown)
				}
				if !reflect.DeepEqual(got.Features, want[i].Features) || !reflect.DeepEqual(got.Words, want[i].Words) {
					bad <- i
					return
				}
			}
		})
	}
	wg.Wait()
	close(bad)
	for i := range bad {
		t.Errorf("article %d: its profile made concurrently differs from the one made alone", i)
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], kept[i]) {
			t.Fatalf("article %d: the profile handed out first changed after later profiles were made", i)
		}
	}
}
