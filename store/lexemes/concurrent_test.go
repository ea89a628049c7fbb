package lexemes

import (
	"bytes"
	"testing"

	"github.com/feedpoller/feedpoller/internal/concurrent"
)

// TestArticleBinaryConcurrent: vectors are built in pooled documents,
// and the daemon's workers build them at once, through one lexicon.
// Built from several goroutines, each article's vector is the one built
// alone, and a vector handed out earlier is not changed by later ones.
func TestArticleBinaryConcurrent(t *testing.T) {
	arts := storyArticles(t)
	l := NewLexicon(50000)
	want := make([][]byte, len(arts))
	kept := make([][]byte, len(arts))
	for i, a := range arts {
		want[i] = l.ArticleBinary(a.Title, summaryOf(a.Markdown), a.Markdown, C)
		kept[i] = bytes.Clone(want[i])
	}
	concurrent.Same(t, len(arts), func(i int) bool {
		a := arts[i]
		return bytes.Equal(l.ArticleBinary(a.Title, summaryOf(a.Markdown), a.Markdown, C), want[i])
	})
	for i := range want {
		if !bytes.Equal(want[i], kept[i]) {
			t.Fatalf("article %d: the vector handed out first changed after later ones were built", i)
		}
	}
}
