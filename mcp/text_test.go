package mcp

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/model"
)

// TestChunkCoversTheTextWithinBudget: the parts of a text cut at every
// budget put back together are the text, each within its budget, counted
// exactly, and every call progresses, even through a line or a word
// longer than the budget.
func TestChunkCoversTheTextWithinBudget(t *testing.T) {
	c, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"prose":     strings.Repeat("Feeds are polled on schedule and turned into Markdown.\n\n", 40),
		"long line": strings.Repeat("word ", 600),
		"one word":  strings.Repeat("x", 3000),
		"unicode":   strings.Repeat("日本語のテキスト、café ünïcode. ", 80),
	}
	for name, text := range texts {
		for _, budget := range []int{1, 7, 50, 333} {
			var b strings.Builder
			for offset, calls := 0, 0; offset < len(text); calls++ {
				part, n := chunk(c, text, offset, budget)
				if part == "" {
					t.Fatalf("%s, budget %d: no progress at %d", name, budget, offset)
				}
				if n != c.Count(part) || (n > budget && len([]rune(part)) > 1) {
					t.Fatalf("%s, budget %d: part of %d tokens (counted %d)", name, budget, c.Count(part), n)
				}
				b.WriteString(part)
				offset += len(part)
			}
			if b.String() != text {
				t.Errorf("%s, budget %d: the parts are not the text", name, budget)
			}
		}
	}
}

func TestOutlineShowsHeadingsAndFirstSentences(t *testing.T) {
	md := "Intro sentence one. Intro two. Intro three.\n\n## Install\n\nRun the binary. Then configure it. Later more.\n\n" +
		"```\n# not a heading\n```\n\n### Details\n\n- a list item. Another.\n| table | row |\n"
	got := outline("Guide", md)
	want := "# Guide\n\nIntro sentence one. Intro two.\n\n### Install\nRun the binary. Then configure it.\n\n#### Details\na list item. Another.\n"
	if got != want {
		t.Errorf("outline:\n%q\nwant\n%q", got, want)
	}
}

func TestItemURIRoundTrips(t *testing.T) {
	ws, item, ok := parseItemURI(itemURI(3, 41))
	if !ok || ws != 3 || item != 41 {
		t.Fatalf("parse(itemURI(3, 41)) = %d %d %v", ws, item, ok)
	}
	for _, bad := range []string{"feedpoller://workspaces/x/items/1", "feedpoller://workspaces/1/items/", "file:///etc/passwd",
		"feedpoller://workspaces/0/items/1", "feedpoller://workspaces/1/items/-2"} {
		if _, _, ok := parseItemURI(bad); ok {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}

// meter counts the bytes a token counter is handed.
type meter struct {
	c     *tokens.Counter
	bytes int
}

func (m *meter) Count(s string) int { m.bytes += len(s); return m.c.Count(s) }
func (m *meter) Cuts(s string, budget int) []tokens.Cut {
	m.bytes += len(s)
	return m.c.Cuts(s, budget)
}

// TestReadArticleCountsThePartOnly: reading an article any publisher can
// plant (a megabyte of one "word", a megabyte summary, a megabyte
// heading) hands the tokeniser a bounded part at every level and every
// max_tokens, never the whole text again on each call; the full level's
// total is the count stored with the article.
func TestReadArticleCountsThePartOnly(t *testing.T) {
	c, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("a", 1<<20)
	arts := map[string]*model.FeedArticle{
		"one word": {ID: 1, Title: "One word", ContentMarkdown: huge, OutputTokens: 131072},
		"summary":  {ID: 2, Title: "Summary", Summary: huge, ContentMarkdown: "short", OutputTokens: 1},
		"heading":  {ID: 3, Title: "Heading", ContentMarkdown: "# " + huge + "\n\ntext", OutputTokens: 131073},
	}
	for name, a := range arts {
		for _, level := range []string{LevelSummary, LevelOutline, LevelFull} {
			for _, budget := range []int{minMaxTokens, defaultMaxTokens, maxMaxTokens} {
				m := &meter{c: c}
				out, err := readArticle(m, a, 1, ArticleInput{ID: a.ID, Level: level, MaxTokens: budget})
				if err != nil {
					t.Fatal(err)
				}
				if out.Text == "" || out.Tokens > budget || out.Tokens != c.Count(out.Text) {
					t.Errorf("%s %s %d: part of %d bytes, %d tokens", name, level, budget, len(out.Text), out.Tokens)
				}
				if limit := maxPartBytes + 2*summaryLevelChars + 1000; m.bytes > limit {
					t.Errorf("%s %s max_tokens %d: the tokeniser read %d bytes, want at most %d", name, level, budget, m.bytes, limit)
				}
				if level == LevelFull && out.TotalTokens != c.Count(fullTitle(a.Title))+a.OutputTokens {
					t.Errorf("%s: total %d, want the stored count and the title line", name, out.TotalTokens)
				}
			}
		}
	}
}
