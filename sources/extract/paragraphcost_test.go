package extract

import (
	"runtime"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestParagraphCost(t *testing.T) {
	for _, c := range []struct {
		name, html string
		want       int
	}{
		{"no paragraphs", `<div>text</div>`, 0},
		{"one paragraph", `<p>abcd</p>`, 2},
		{"nested text counts", `<p>ab<b>cd</b></p><p>ef</p>`, 2 * 6 / 2},
		{"text outside paragraphs does not", `<p>ab</p><div>cdefgh</div>`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(c.html))
			if err != nil {
				t.Fatal(err)
			}
			if got := paragraphCost(doc); got != c.want {
				t.Errorf("paragraphCost = %d, want %d", got, c.want)
			}
		})
	}
}

// TestHugePageStaysLinear: a page of 1 MiB of paragraphs (a hostile or
// broken page; the fetcher allows 10 MiB) made go-trafilatura allocate
// about 1 GB, its paragraph gathering growing with the square of the
// page. Such a page now goes to readability alone. Allocation is counted,
// not time, so a loaded machine cannot change the verdict.
func TestHugePageStaysLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>Huge</title></head><body><article>")
	para := "<p>" + strings.Repeat("word after word in a long paragraph ", 14) + "</p>\n"
	for b.Len() < 1<<20 {
		b.WriteString(para)
	}
	b.WriteString("</article></body></html>")
	page := []byte(b.String())

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	doc, err := Extract(page, "https://example.com/huge", Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Method != methodReadability {
		t.Errorf("method %q, want %q for a page over the paragraph budget", doc.Method, methodReadability)
	}
	if doc.Stats.WordCount < 100000 {
		t.Errorf("%d words extracted, want the page's paragraphs", doc.Stats.WordCount)
	}
	// Linear work on a 1 MiB page allocates a few dozen times its size;
	// the quadratic path allocated about a gigabyte.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("extracting a 1 MiB page allocated %d MiB, want under 256 MiB", alloc>>20)
	}
}
