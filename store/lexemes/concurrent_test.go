package lexemes

import (
	"bytes"
	"sync"
	"testing"
)

// TestArticleBinaryConcurrent: vectors are built in pooled documents,
// and the daemon's workers build them at once, through one lexicon.
// Built from eight goroutines, each article's vector is the one built
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
	var wg sync.WaitGroup
	bad := make(chan int, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range arts {
				i := (k*7 + g*13) % len(arts)
				a := arts[i]
				if got := l.ArticleBinary(a.Title, summaryOf(a.Markdown), a.Markdown, C); !bytes.Equal(got, want[i]) {
					bad <- i
					return
				}
			}
		})
	}
	wg.Wait()
	close(bad)
	for i := range bad {
		t.Errorf("article %d: its vector built concurrently differs from the one built alone", i)
	}
	for i := range want {
		if !bytes.Equal(want[i], kept[i]) {
			t.Fatalf("article %d: the vector handed out first changed after later ones were built", i)
		}
	}
}
