package tokens

import (
	"strings"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

func newCL100K(t testing.TB) *Counter {
	t.Helper()
	c, err := For(CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Known cl100k_base counts, as OpenAI's tokenizer reports them.
func TestCL100KKnownCounts(t *testing.T) {
	c := newCL100K(t)
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"tiktoken is great!", 6},
		{"antidisestablishmentarianism", 6},
		{"<|endoftext|>", 7},
	} {
		if got := c.Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// The counter built here must agree with the library's own cl100k_base
// encoder on every kind of text a digest holds.
func TestCL100KMatchesLibraryEncoding(t *testing.T) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	ref, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
	if err != nil {
		t.Fatal(err)
	}
	c := newCL100K(t)
	texts := []string{
		"# Digest: golang — 2025-03-01 to 2025-03-02\n\n1. **Go 1.24 released** [1][2]\n",
		"| # | Story | Sources |\n| --- | --- | --- |\n| 1 | A \\| B | [1] example.org (tier 1) |",
		"Zürich, 東京, Ελλάδα, مرحبا — naïve café 1234567 3.14159\r\n\r\n\ttabs  and   spaces",
		"https://example.org/a/b?c=d&e=f#g — tier 5",
		strings.Repeat("word ", 200),
		"emoji 👍🏽 and symbols ©®™ …",
	}
	for _, s := range texts {
		if got, want := c.Count(s), len(ref.EncodeOrdinary(s)); got != want {
			t.Errorf("Count(%q) = %d, library says %d", s, got, want)
		}
	}
}

func TestCL100KConcurrent(t *testing.T) {
	c := newCL100K(t)
	want := c.Count("The quick brown fox jumps over the lazy dog.")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := c.Count("The quick brown fox jumps over the lazy dog."); got != want {
					t.Errorf("concurrent Count = %d, want %d", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
