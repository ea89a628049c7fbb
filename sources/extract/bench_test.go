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

func BenchmarkEstimateTokens(b *testing.B) {
	page, err := os.ReadFile(filepath.Join("testdata", "pages", "news.html"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(page)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		EstimateTokens(s)
	}
}
