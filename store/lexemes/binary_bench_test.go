package lexemes

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/storyfeeds"
)

// storyArticles are the labelled story set's articles, real news text
// in several outlets' editing: what the store indexes.
func storyArticles(tb testing.TB) []storyfeeds.Article {
	tb.Helper()
	arts, err := storyfeeds.Load("../../analysis/stories/testdata/storyset.json")
	if err != nil {
		tb.Fatal(err)
	}
	return arts
}

// summaryOf is an article's first paragraph, standing for its feed's
// summary.
func summaryOf(markdown string) string {
	first, _, _ := strings.Cut(markdown, "\n\n")
	return first
}

// BenchmarkArticleBinary: the story set's articles through a lexicon
// that has read them before, as the store's has.
func BenchmarkArticleBinary(b *testing.B) {
	arts := storyArticles(b)
	l := NewLexicon(50000)
	size := 0
	for _, a := range arts {
		l.ArticleBinary(a.Title, summaryOf(a.Markdown), a.Markdown, C)
		size += len(a.Markdown)
	}
	b.SetBytes(int64(size / len(arts)))
	i := 0
	for b.Loop() {
		a := arts[i%len(arts)]
		l.ArticleBinary(a.Title, summaryOf(a.Markdown), a.Markdown, C)
		i++
	}
}
