package main

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/sources/extract"
)

const scanPageHTML = `<html><head><title>River levels fall</title></head><body>
<nav><a href="/stats/">Stats</a></nav>
<p>What everyone <strong>will</strong> appreciate is the warning.</p>
<p>The repairs covered all <a href="/m">MacBook</a>s sold that year.</p>
<table><tr><th>Flag</th><th>Default</th></tr><tr><td>-v</td><td>off</td></tr></table>
</body></html>`

// TestScanFindsEachDefect: every detector finds its defect in Markdown
// that has it, and the clean Markdown of the same page passes.
func TestScanFindsEachDefect(t *testing.T) {
	clean := "What everyone **will** appreciate is the warning.\n\nThe repairs covered all [MacBook](https://x.test/m)s sold that year.\n\n| Flag | Default |\n|---|---|\n| -v | off |"
	tests := []struct {
		kind, md, text string
	}{
		{defectGlued, "What everyone **will**appreciate is the warning.", ""},
		{defectGlued, "What everyone**will** appreciate is the warning.", ""},
		{defectTextChanged, "What everyone appreciates the warning.", "What everyone will appreciate the warning."},
		{defectTable, "FlagDefault\n\n-voff", ""},
		{defectEscape, "**– Dia\\*\\*\\** Co\\**", "– Dia**** Co**"},
		{defectLink, "[Stats](https://x.test/stats/) and [Stats](https://x.test/stats/)", ""},
		{defectCut, "Most adults need seven hours of sleep (", ""},
		{defectTfoot, "| Flag | Default |\n|---|---|\n| Flag | Default |\n| -v | off |", ""},
		{defectEmptyTable, "|  |\n|---|\n|  |", ""},
		{defectInvisible, "Text.\n\n\u200b\n\nMore text.", ""},
		{defectShare, "[WhatsApp](https://api.whatsapp.com/send?text=x)", ""},
		{defectDangling, "Text.\n\n### You may also like:", ""},
		{defectHeader, "![print header logo](https://x.test/img/print-header-logo.png)\n\nText.", ""},
		{defectHeader, "# River levels fall\n\nText.", ""},
	}
	kinds := func(md, text string) []string {
		if text == "" {
			text = md
		}
		doc := &extract.Document{Markdown: md, Text: text}
		doc.Metadata.Title = "River levels fall"
		var out []string
		for _, f := range scanPage([]byte(scanPageHTML), "https://x.test/a", doc) {
			out = append(out, f.kind)
		}
		return out
	}
	if got := kinds(clean, strings.NewReplacer("**", "", "[MacBook](https://x.test/m)", "MacBook", "| Flag | Default |\n|---|---|\n| -v | off |", "Flag Default -v off").Replace(clean)); len(got) != 0 {
		t.Errorf("clean Markdown: findings %v", got)
	}
	for _, tt := range tests {
		if got := kinds(tt.md, tt.text); !slices.Contains(got, tt.kind) {
			t.Errorf("%q: findings %v, want %q", tt.md, got, tt.kind)
		}
	}
}

// TestCrossValidate: sites, not pages, go into folds; a chosen
// extractor gets, per fold, the setting best on the other folds.
func TestCrossValidate(t *testing.T) {
	page := func(id, site string, p float64) pageScore {
		return pageScore{ID: id, Site: site, Precision: p, Recall: 1, TP: p, FP: 1 - p, Truth: 10}
	}
	var a, b []pageScore
	for i, site := range []string{"a.test", "b.test", "c.test", "d.test", "e.test", "f.test", "g.test", "h.test"} {
		for k := range 2 {
			id := site + string(rune('0'+k))
			a = append(a, page(id, site, 0.9))
			// The b setting wins on every site but one.
			pb := 0.95
			if i == 0 {
				pb = 0.5
			}
			b = append(b, page(id, site, pb))
		}
	}
	tab := crossValidate([]system{{"fp-a", a}, {"fp-b", b}, {"other", a}}, 4, "fp-")
	total := 0
	for f, n := range tab.foldSizes {
		// Every site has two pages: a fold of odd size split a site.
		if n%2 != 0 {
			t.Errorf("fold %d has %d pages", f, n)
		}
		total += n
	}
	if total != 16 {
		t.Errorf("folds hold %d pages, want 16", total)
	}
	chosen := tab.rows[len(tab.rows)-1]
	if !strings.HasPrefix(chosen.name, "fp (") || len(chosen.chosen) != 4 {
		t.Fatalf("chosen row = %+v", chosen)
	}
	for f, c := range chosen.chosen {
		if c != "b" && c != "a" {
			t.Errorf("fold %d chose %q", f, c)
		}
	}
	if got := aggregateOf(a); math.Abs(got.P-0.9) > 1e-9 || got.R != 1 {
		t.Errorf("aggregate = %+v", got)
	}
	var sb strings.Builder
	tab.write(&sb)
	if !strings.Contains(sb.String(), "| other |") {
		t.Errorf("table:\n%s", sb.String())
	}
}

// TestBenchmarkPagesClean runs the scan over the benchmark's pages when
// FEEDPOLLER_EXTRACTION_BENCHMARK names their directory (they are not in
// the repository): no defect of any kind on any page.
func TestBenchmarkPagesClean(t *testing.T) {
	dir := os.Getenv("FEEDPOLLER_EXTRACTION_BENCHMARK")
	if dir == "" {
		t.Skip("set FEEDPOLLER_EXTRACTION_BENCHMARK to the benchmark's data directory")
	}
	var out strings.Builder
	if err := scanCmd([]string{"-data", dir, "-v"}, &out); err != nil {
		t.Errorf("%v\n%s", err, out.String())
	}
}
