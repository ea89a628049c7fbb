package console

import (
	"strings"
	"testing"
	"time"
)

// TestMarkdownKeepsStoragesLinkRule: links keep only the destinations
// storage keeps (http, https, mailto, relative), relative ones are
// resolved against the article, images become links, and raw HTML never
// passes through.
func TestMarkdownKeepsStoragesLinkRule(t *testing.T) {
	const base = "https://news.example/2026/story.html"
	cases := []struct {
		name, md  string
		want, not []string
	}{
		{"http link kept, marked", "[site](https://other.example/a)",
			[]string{`<a href="https://other.example/a" rel="nofollow noopener noreferrer">site</a>`}, nil},
		{"javascript link becomes its text", "[click](javascript:alert(1))",
			[]string{"click"}, []string{"<a", "javascript"}},
		{"other schemes too", "[file](ftp://files.example/x) [call](tel:+123) [data](data:text/html,x)",
			[]string{"file", "call", "data"}, []string{"<a", "ftp:", "tel:", "data:"}},
		{"an autolink of another scheme", "<vbscript:msgbox(1)>",
			[]string{"vbscript:msgbox(1)"}, []string{"<a"}},
		{"relative link resolved against the article", "[next](../next.html)",
			[]string{`href="https://news.example/next.html"`}, nil},
		{"mailto kept", "[mail](mailto:desk@news.example)", []string{`href="mailto:desk@news.example"`}, nil},
		{"image becomes a link to it", "![a chart](/img/chart.png)",
			[]string{`<a href="https://news.example/img/chart.png" rel="nofollow noopener noreferrer">image: a chart</a>`}, []string{"<img"}},
		{"an unsafe image leaves its text", "![pixel](javascript:alert(1))", []string{"pixel"}, []string{"<img", "<a", "javascript"}},
		{"raw HTML left out", "before <script>alert(1)</script> <b onclick=\"x()\">bold</b>\n\n<iframe src=\"https://evil.example\"></iframe>",
			[]string{"before", "bold"}, []string{"<script", "<b ", "onclick", "<iframe"}},
		{"text escaped", "5 < 6 & \"quotes\"", []string{"5 &lt; 6 &amp; &quot;quotes&quot;"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(markdown(tc.md, base))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q renders as %q: lacks %q", tc.md, got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%q renders as %q: has %q", tc.md, got, n)
				}
			}
		})
	}
	// Without a usable base, a relative link loses its link, never points
	// into the console.
	if got := string(markdown("[x](/ui/tokens)", "")); strings.Contains(got, "<a") {
		t.Errorf("a relative link without a base: %q", got)
	}
}

func TestBuildChartStacksAndScales(t *testing.T) {
	start := time.Date(2026, 3, 1, 22, 0, 0, 0, time.UTC)
	c := buildChart(chartSpec{ID: "x", Series: []seriesDef{{"ok", "ok", "o-ok"}, {"error", "failed", "o-err"}},
		Start: start, Step: time.Hour, N: 4, LabelDays: 1, LabelFormat: dayLabelFm,
		Counts: map[int]map[string]int{0: {"ok": 4}, 2: {"ok": 1, "error": 1}}})
	if len(c.Bars) != 3 {
		t.Fatalf("%d bars, want 3: %+v", len(c.Bars), c.Bars)
	}
	// The scale tops at 5 for a peak of 4: the first bar is 4/5 high and
	// the two segments of the third stack one above the other.
	if h := c.Bars[0].H; h != c.PlotH*4/5 {
		t.Errorf("first bar %v high, want %v", h, c.PlotH*4/5)
	}
	if b, a := c.Bars[1], c.Bars[2]; a.Y+a.H != b.Y || b.Y+b.H != c.PlotY+c.PlotH {
		t.Errorf("segments do not stack: %+v %+v", b, a)
	}
	if len(c.XLabels) != 1 || c.XLabels[0].Text != "Mar 2" {
		t.Errorf("labels %+v, want one at midnight, Mar 2", c.XLabels)
	}
	if len(c.TableRows) != 2 || c.TableRows[0].Total != 4 || c.TableRows[1].Values[1] != 1 {
		t.Errorf("table %+v", c.TableRows)
	}
	if c.Empty || !buildChart(chartSpec{Series: c2s(), Start: start, Step: time.Hour, N: 3}).Empty {
		t.Error("emptiness misjudged")
	}
	for n, want := range map[int]int{0: 2, 2: 2, 3: 5, 7: 10, 11: 20, 150: 200, 501: 1000} {
		if got := niceCeil(n); got != want {
			t.Errorf("niceCeil(%d) = %d, want %d", n, got, want)
		}
	}
}

func c2s() []seriesDef { return []seriesDef{{"ok", "ok", "o-ok"}} }

func TestSnippetPartsReadMarkdownAsText(t *testing.T) {
	got := snippetParts("…See [the **earlier** report](http://a.example/1) and ## More [a cut](http://b.exa")
	var b strings.Builder
	for _, p := range got {
		if p.Mark {
			b.WriteString("<" + p.Text + ">")
		} else {
			b.WriteString(p.Text)
		}
	}
	if want := "…See the <earlier> report and More a cut"; b.String() != want {
		t.Errorf("snippet reads %q, want %q", b.String(), want)
	}
}
