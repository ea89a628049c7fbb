package mcp

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/analysis/tokens"
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
