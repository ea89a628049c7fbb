package stories

import (
	"strings"
	"testing"

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
