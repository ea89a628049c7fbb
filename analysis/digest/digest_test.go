package digest

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/model"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

func TestBuild(t *testing.T) {
	in := storySetInput(t)
	d := Build(in, Options{})
	if len(d.Stories) != len(in.Stories) {
		t.Fatalf("%d stories, want %d", len(d.Stories), len(in.Stories))
	}
	n := 0
	for i, s := range d.Stories {
		if i > 0 {
			if prev := d.Stories[i-1]; prev.Importance < s.Importance {
				t.Errorf("story %d (importance %v) ranks above story %d (%v)", i, s.Importance, i-1, prev.Importance)
			}
		}
		if len(s.Sources) == 0 || s.Title == "" || s.Summary == "" || !s.Sources[s.Quoted].Quoted || s.Title != s.Sources[s.Quoted].Title {
			t.Fatalf("story %d: %d sources, title %q, summary %q", s.ID, len(s.Sources), s.Title, s.Summary)
		}
		for j, src := range s.Sources {
			n++
			if src.Citation != n || d.Citations[n-1].URL != src.URL {
				t.Fatalf("story %d source %d: citation %d, want %d with its URL", s.ID, j, src.Citation, n)
			}
			if j == 0 != src.First || j > 0 && src.ReportedAt.Before(s.Sources[j-1].ReportedAt) {
				t.Fatalf("story %d: sources not in provenance order", s.ID)
			}
			if got := src.ReportedAt.Sub(s.Sources[0].ReportedAt); got != src.Lag {
				t.Fatalf("story %d source %d: lag %v, want %v", s.ID, j, src.Lag, got)
			}
		}
		if s.Sources[0].Domain != "newswire.example" {
			t.Errorf("story %d: first reporter %s, want the wire", s.ID, s.Sources[0].Domain)
		}
	}
	if d.ArticleCount != len(loadSet(t)) || len(d.Citations) != d.ArticleCount {
		t.Errorf("articles %d, citations %d, want %d", d.ArticleCount, len(d.Citations), len(loadSet(t)))
	}
	if len(d.Gaps) != 2 || d.Gaps[0].Kind != GapFailed || d.Gaps[0].SourceID != 90 || d.Gaps[1].Kind != GapSilent || d.Gaps[1].SourceID != 91 {
		t.Errorf("gaps %+v, want the failing source 90 then the silent source 91", d.Gaps)
	}
	if d.Confidence <= 0 || d.Confidence >= 1 {
		t.Errorf("overall confidence %v", d.Confidence)
	}
	if got := Build(in, Options{MaxStories: 3}); len(got.Stories) != 3 || got.Stories[0].ID != d.Stories[0].ID {
		t.Errorf("MaxStories 3: %d stories", len(got.Stories))
	}
}

// An article without a URL is not rendered, and neither is a story left
// without one: nothing appears that cannot be cited.
func TestBuildDropsWhatCannotBeCited(t *testing.T) {
	now := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	d := Build(Input{
		Window: Window{Since: now.Add(-24 * time.Hour), Until: now},
		Stories: []Story{
			{ID: 1, Articles: []model.DigestArticle{{ID: 1, Title: "no url", StoredAt: now}}},
			{ID: 2, Articles: []model.DigestArticle{{ID: 2, Title: "no url", StoredAt: now}, {ID: 3, URL: "https://a.example/x", Title: "cited", StoredAt: now}}},
		},
	}, Options{})
	if len(d.Stories) != 1 || d.Stories[0].ID != 2 || len(d.Stories[0].Sources) != 1 || d.Stories[0].Title != "cited" {
		t.Fatalf("stories %+v, want story 2 with its cited article only", d.Stories)
	}
}

var citeRef = regexp.MustCompile(`\[(\d+)\]`)

func TestMarkdown(t *testing.T) {
	in := storySetInput(t)
	in.Stories[0].Articles[0].Title = "Pipes | stars * and [brackets] <b>in</b> a # title"
	d := Build(in, Options{})
	md := Markdown(d)
	for _, want := range []string{
		"# Digest: world news, 2024-12-01 00:00 UTC to 2025-11-01 00:00 UTC\n",
		"## Key takeaways\n", "## Evidence\n", "## Gaps\n", "## Sources\n",
		"- [Broken \\| Feed](https://broken.example/rss): failed, last poll at 2025-10-31 23:00 UTC ended in error: HTTP 503 Service Unavailable (3 consecutive failures)\n",
		"- [Quiet blog](https://quiet.example/atom): silent, no articles reported in the window (last reported 2025-09-01 00:00 UTC)\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	// Every takeaway cites, and every number it cites is in the sources.
	section := func(name string) string {
		s := md[strings.Index(md, "## "+name):]
		if i := strings.Index(s[3:], "\n## "); i >= 0 {
			s = s[:i+3]
		}
		return s
	}
	sources := section("Sources")
	takeaways := 0
	for _, line := range strings.Split(section("Key takeaways"), "\n") {
		if !regexp.MustCompile(`^\d+\. `).MatchString(line) {
			continue
		}
		takeaways++
		refs := citeRef.FindAllStringSubmatch(line, -1)
		if len(refs) == 0 {
			t.Errorf("takeaway cites nothing: %q", line)
		}
		for _, r := range refs {
			if !strings.Contains(sources, "\n"+r[1]+". [") {
				t.Errorf("takeaway cites [%s], missing from the sources list", r[1])
			}
		}
	}
	if takeaways != TakeawayCount {
		t.Errorf("%d takeaways, want %d", takeaways, TakeawayCount)
	}

	// Parsed as GitHub-flavoured Markdown: one table row per story, the
	// hostile title stays text in one cell, every source is a link.
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader([]byte(md)))
	var rows, links int
	hrefs := map[string]bool{}
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.RawHTML, *ast.HTMLBlock:
			t.Errorf("raw HTML in the digest (%s)", n.Kind())
		case *ast.Link:
			links++
			hrefs[string(n.Destination)] = true
		}
		if n.Kind() == east.KindTableRow {
			rows++
			if c := n.ChildCount(); c != 4 {
				t.Errorf("table row with %d cells", c)
			}
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(d.Stories) {
		t.Errorf("%d evidence rows, want %d", rows, len(d.Stories))
	}
	for _, c := range d.Citations {
		if !hrefs[c.URL] {
			t.Errorf("source %d (%s) is not a link", c.N, c.URL)
		}
	}
	if !strings.Contains(md, `Pipes \| stars \* and \[brackets\] \<b\>in\</b\> a \# title`) {
		t.Errorf("hostile title not escaped")
	}
}

func TestJSON(t *testing.T) {
	d := Build(storySetInput(t), Options{})
	b, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Metadata struct {
			Workspace struct {
				ID   int64  `json:"id"`
				Name string `json:"name"`
			} `json:"workspace"`
			Window struct {
				Since, Until time.Time
			} `json:"window"`
			GeneratedAt     time.Time `json:"generated_at"`
			SourcesAnalyzed int       `json:"sources_analyzed"`
			Confidence      float64   `json:"overall_confidence"`
		} `json:"metadata"`
		Stories []struct {
			ID          int64   `json:"id"`
			Title       string  `json:"title"`
			Summary     string  `json:"summary"`
			Confidence  float64 `json:"confidence"`
			SourceCount int     `json:"source_count"`
			Citations   []int   `json:"citations"`
			Sources     []struct {
				Citation    int        `json:"citation"`
				URL         string     `json:"url"`
				Title       string     `json:"title"`
				Tier        int        `json:"reliability_tier"`
				PublishedAt *time.Time `json:"published_at"`
				LagSeconds  *int64     `json:"lag_seconds"`
			} `json:"sources"`
		} `json:"stories"`
		Gaps []struct {
			Kind string `json:"kind"`
			URL  string `json:"url"`
		} `json:"gaps"`
		Sources []struct {
			N   int    `json:"citation"`
			URL string `json:"url"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Metadata
	if m.Workspace.ID != 7 || m.Workspace.Name != "world news" || !m.Window.Since.Equal(d.Window.Since) || m.SourcesAnalyzed != d.SourcesAnalyzed || m.Confidence == 0 || m.GeneratedAt.IsZero() {
		t.Errorf("metadata %+v", m)
	}
	if len(doc.Stories) != len(d.Stories) || len(doc.Gaps) != 2 || len(doc.Sources) != len(d.Citations) {
		t.Fatalf("%d stories, %d gaps, %d sources", len(doc.Stories), len(doc.Gaps), len(doc.Sources))
	}
	for _, s := range doc.Stories {
		if s.Title == "" || s.Summary == "" || s.Confidence <= 0 || s.SourceCount < 1 || len(s.Sources) == 0 || len(s.Citations) != len(s.Sources) {
			t.Fatalf("story %+v", s)
		}
		for _, src := range s.Sources {
			if src.URL == "" || src.Tier < 1 || src.Tier > 5 || src.PublishedAt == nil || src.LagSeconds == nil || doc.Sources[src.Citation-1].URL != src.URL {
				t.Fatalf("story %d source %+v", s.ID, src)
			}
		}
	}
}

// For many budgets the compact digest counts at most the budget, and the
// next story would not have fit.
func TestCompactFitsBudgetExactly(t *testing.T) {
	tc := cl100k(t)
	d := Build(storySetInput(t), Options{})
	full := compactLines(d, CompactCitations, true)
	prev := 0
	for budget := 60; budget <= 3000; budget += 37 {
		out, err := Compact(d, budget, tc)
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("budget %d: %v", budget, err)
			}
			continue
		}
		got := tc.Count(out)
		if got > budget {
			t.Fatalf("budget %d: output counts %d tokens", budget, got)
		}
		k := strings.Count(out, "\n") - countSourceLines(out) - 2 // header and "Sources:"
		if k < prev {
			t.Fatalf("budget %d: %d stories, fewer than %d at a smaller budget", budget, k, prev)
		}
		prev = k
		if out == full.text(k) && k < len(d.Stories) {
			if next := tc.Count(full.text(k + 1)); next <= budget {
				t.Fatalf("budget %d: %d stories fit (%d tokens) but only %d given", budget, k+1, next, k)
			}
		}
		checkCompactCitations(t, out)
	}
	need := tc.Count(full.text(len(d.Stories)))
	if out, err := Compact(d, need, tc); err != nil || out != full.text(len(d.Stories)) {
		t.Fatalf("budget %d (the whole digest): %v, or not every story", need, err)
	}
	if out, _ := Compact(d, need-1, tc); out == full.text(len(d.Stories)) {
		t.Fatalf("budget %d: the whole digest of %d tokens", need-1, need)
	}
}

func countSourceLines(out string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[") {
			n++
		}
	}
	return n
}

// checkCompactCitations fails unless every story line cites numbers whose
// URLs the output lists.
func checkCompactCitations(t *testing.T, out string) {
	t.Helper()
	listed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if m := regexp.MustCompile(`^\[(\d+)\] https://`).FindStringSubmatch(l); m != nil {
			listed[m[1]] = true
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if !regexp.MustCompile(`^\d+\. `).MatchString(l) {
			continue
		}
		m := regexp.MustCompile(`\[([\d,]+)\] confidence`).FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("story line without citations: %q", l)
		}
		for _, n := range strings.Split(m[1], ",") {
			if !listed[n] {
				t.Fatalf("story line cites [%s], not listed: %q", n, l)
			}
		}
	}
}

func TestCompactBudgetTooSmall(t *testing.T) {
	tc := cl100k(t)
	d := Build(storySetInput(t), Options{})
	single := tc.Count(compactLines(d, 1, false).text(1))
	withSummary := tc.Count(compactLines(d, 1, true).text(1))
	two := tc.Count(compactLines(d, CompactCitations, true).text(1))
	if single >= withSummary || withSummary >= two {
		t.Fatalf("first story: %d tokens bare, %d with summary, %d with %d citations", single, withSummary, two, CompactCitations)
	}
	for _, budget := range []int{-5, 0, 1, single - 1} {
		_, err := Compact(d, budget, tc)
		var be *BudgetError
		if !errors.As(err, &be) || !errors.Is(err, ErrBudget) || be.Need != single {
			t.Fatalf("budget %d: err = %v, want a BudgetError needing %d", budget, err, single)
		}
		if !strings.Contains(err.Error(), strconv.Itoa(single)) {
			t.Errorf("error %q does not say how many tokens are needed", err)
		}
	}
	for _, budget := range []int{single, withSummary - 1, withSummary, two - 1} {
		out, err := Compact(d, budget, tc)
		if err != nil || tc.Count(out) > budget || strings.Count(out, "\n[") != 1 {
			t.Fatalf("budget %d: %q, %v; want the first story with one citation", budget, out, err)
		}
		if hasSummary := strings.Contains(out, summary.FirstSentence(d.Stories[0].Summary)[:30]); hasSummary != (budget >= withSummary) {
			t.Errorf("budget %d: summary given %v, want %v", budget, hasSummary, budget >= withSummary)
		}
		checkCompactCitations(t, out)
	}
}

func TestEmptyDigest(t *testing.T) {
	tc := cl100k(t)
	now := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	d := Build(Input{Workspace: Workspace{ID: 3, Name: "quiet"}, Window: Window{Since: now.Add(-time.Hour), Until: now}, GeneratedAt: now, SourcesAnalyzed: 2}, Options{})
	md := Markdown(d)
	if !strings.Contains(md, "No stories in this window: none of the 2 sources stored or reported an article in it.") || strings.Contains(md, "## Key takeaways") {
		t.Errorf("empty Markdown:\n%s", md)
	}
	b, err := JSON(d)
	if err != nil || !bytes.Contains(b, []byte(`"stories": []`)) || !bytes.Contains(b, []byte(`"note": "no stories in this window: none of the 2 sources stored or reported an article in it"`)) ||
		!bytes.Contains(b, []byte(`"gaps": []`)) || bytes.Contains(b, []byte("stored_before_window")) {
		t.Errorf("empty JSON (%v):\n%s", err, b)
	}
	out, err := Compact(d, DefaultMaxTokens, tc)
	if err != nil || !strings.HasSuffix(out, "No stories in this window: none of the 2 sources stored or reported an article in it.\n") {
		t.Errorf("empty compact: %q, %v", out, err)
	}
	if _, err := Compact(d, 3, tc); !errors.Is(err, ErrBudget) {
		t.Errorf("empty compact in 3 tokens: %v", err)
	}
}

func TestRender(t *testing.T) {
	tc := cl100k(t)
	d := Build(storySetInput(t), Options{})
	for _, tc2 := range []struct {
		f    Format
		mime string
	}{{FormatMarkdown, "text/markdown; charset=utf-8"}, {FormatJSON, "application/json"}, {FormatCompact, "text/plain; charset=utf-8"}} {
		b, mime, err := Render(d, tc2.f, 0, tc)
		if err != nil || mime != tc2.mime || len(b) == 0 {
			t.Errorf("%s: %d bytes, %q, %v", tc2.f, len(b), mime, err)
		}
		if tc2.f == FormatCompact && tc.Count(string(b)) > DefaultMaxTokens {
			t.Errorf("compact default budget: %d tokens", tc.Count(string(b)))
		}
	}
	if _, _, err := Render(d, "xml", 0, tc); !errors.Is(err, ErrFormat) {
		t.Errorf("xml: %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatMarkdown, "markdown": FormatMarkdown, "json": FormatJSON, "compact": FormatCompact} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	_, err := ParseFormat("xml")
	if !errors.Is(err, ErrFormat) || err.Error() != `unknown digest format "xml": accepted formats are markdown, json and compact` {
		t.Errorf("ParseFormat(xml) = %v", err)
	}
}

func TestParseWindow(t *testing.T) {
	now := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		since, until string
		want         Window
	}{
		{"", "", Window{now.Add(-24 * time.Hour), now}},
		{"90m", "", Window{now.Add(-90 * time.Minute), now}},
		{"7d", "2025-03-10", Window{time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)}},
		{"2w", "", Window{now.Add(-14 * 24 * time.Hour), now}},
		{"2025-03-01T06:00:00+01:00", "", Window{time.Date(2025, 3, 1, 5, 0, 0, 0, time.UTC), now}},
	} {
		got, err := ParseWindow(tc.since, tc.until, now)
		if err != nil || !got.Since.Equal(tc.want.Since) || !got.Until.Equal(tc.want.Until) {
			t.Errorf("ParseWindow(%q, %q) = %v, %v; want %v", tc.since, tc.until, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ since, until string }{
		{"yesterday", ""}, {"-5h", ""}, {"0s", ""}, {"", "soon"}, {"2025-03-05", "2025-03-04"}, {"2025-03-04", "2025-03-04"},
	} {
		if _, err := ParseWindow(tc.since, tc.until, now); !errors.Is(err, ErrWindow) {
			t.Errorf("ParseWindow(%q, %q): err = %v, want ErrWindow", tc.since, tc.until, err)
		}
	}
}

func TestLagText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		35 * time.Minute: "+35m", 2*time.Hour + 10*time.Minute: "+2h10m", 3 * time.Hour: "+3h",
		26 * time.Hour: "+1d2h", 48 * time.Hour: "+2d",
	} {
		if got := lagText(false, d); got != want {
			t.Errorf("lagText(%v) = %q, want %q", d, got, want)
		}
	}
	if lagText(true, 0) != "first" {
		t.Error("first reporter")
	}
}
