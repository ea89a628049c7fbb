package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExtract measures a whole page: parse, metadata, extraction,
// Markdown and statistics. The speed target (median CPU per page no higher
// than go-trafilatura's) is checked with the benchmark in
// docs/extraction.md; this keeps an eye on regressions.
func BenchmarkExtract(b *testing.B) {
	page, err := os.ReadFile(filepath.Join("testdata", "pages", "structure.html"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := Extract(page, "https://example.org/blog/go-client.html", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCountTokens counts a page's HTML in both encodings, as Stats
// does for InputTokens.
func BenchmarkCountTokens(b *testing.B) {
	page, err := os.ReadFile(filepath.Join("testdata", "pages", "news.html"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(page)
	countTokens(s) // load the vocabularies outside the timing
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		countTokens(s)
	}
}
