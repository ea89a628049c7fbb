package stories

import (
	"reflect"
	"slices"
	"testing"

	"github.com/feedpoller/feedpoller/internal/concurrent"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
)

// TestProfileConcurrent: profiles are made from pooled scratch, and the
// daemon's workers make them at once. Made from several goroutines, each
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
	concurrent.Same(t, len(set), func(i int) bool {
		// Some calls share the stems' memo, some stem every word
		// themselves: both give one profile.
		if i%2 == 0 {
			return reflect.DeepEqual(stems.Profile(set[i].Title, set[i].Markdown), want[i])
		}
		return reflect.DeepEqual(NewProfile(set[i].Title, set[i].Markdown), want[i])
	})
	for i := range want {
		if !reflect.DeepEqual(want[i], kept[i]) {
			t.Fatalf("article %d: the profile handed out first changed after later profiles were made", i)
		}
	}
}
