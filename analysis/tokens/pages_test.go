package tokens_test

import (
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/internal/benchpages"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// TestCountMatchesTiktokenOnBenchmarkPages counts what the pipeline
// counts for the extraction benchmark's real pages, their HTML and the
// Markdown extracted from it, in both encodings, and compares every count
// with tiktoken-go's. The pages are not in the repository: it runs only
// when their directory is given, as for the benchmarks.
func TestCountMatchesTiktokenOnBenchmarkPages(t *testing.T) {
	pages := benchpages.ForBenchmark(t)
	if testing.Short() {
		t.Skip("tiktoken-go takes about twenty seconds for the pages")
	}
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	for _, enc := range []tokens.Encoding{tokens.CL100kBase, tokens.O200kBase} {
		ref, err := tiktoken.GetEncoding(string(enc))
		if err != nil {
			t.Fatal(err)
		}
		c, err := tokens.For(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			doc, err := extract.Extract(p.HTML, p.URL, extract.Options{SkipTokenCounts: true})
			if err != nil {
				t.Fatalf("extract %s: %v", p.ID, err)
			}
			for _, s := range []string{string(p.HTML), doc.Markdown} {
				if got, want := c.Count(s), len(ref.EncodeOrdinary(s)); got != want {
					t.Errorf("%s: page %s: %d tokens, tiktoken-go says %d", enc, p.ID, got, want)
				}
			}
		}
	}
}
