package textquery

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/store/lexemes"
)

func TestSnippetHighlightsAsTheEnginesMatch(t *testing.T) {
	cases := []struct {
		query, text string
		stem        Stemmer
		more        bool
		want        string
		ok          bool
	}{
		{`released`, `Go 1.26 was Released today with a new release process.`, Porter, false,
			`Go 1.26 was **Released** today with a new **release** process.`, true},
		{`released`, `Go 1.26 was Released today.`, lexemes.English, false, `Go 1.26 was **Released** today.`, true},
		{`"release notes"`, `See the release of notes, then the Release Notes.`, Porter, false,
			`See the release of notes, then the **Release Notes**.`, true},
		{`vuln*`, `A vulnerability in OpenSSL.`, Porter, false, `A **vulnerability** in OpenSSL.`, true},
		{`cafe`, `Un café, s'il vous plaît.`, Porter, false, `Un **café**, s'il vous plaît.`, true},
		{`node.js`, `Written for Node.js and Deno.`, Porter, false, `Written for **Node.js** and Deno.`, true},
		{`go -rust`, `Rust and Go compared.`, Porter, true, `Rust and **Go** compared.…`, true},
		{`zebra`, `No match in this text.`, Porter, false, `No match in this text.`, false},
	}
	for _, c := range cases {
		q, err := Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := q.Highlighter(c.stem).Snippet(c.text, c.more, 32)
		if got != c.want || ok != c.ok {
			t.Errorf("%s in %q: %q %v, want %q %v", c.query, c.text, got, ok, c.want, c.ok)
		}
	}
}

// TestSnippetPicksTheBestPassage: the window with the most different
// terms wins over one with more occurrences of one, and is cut with … on
// both sides.
func TestSnippetPicksTheBestPassage(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	text := filler + "alpha alpha alpha alpha " + filler + "alpha meets beta here " + filler
	q, _ := Parse("alpha beta")
	got, ok := q.Highlighter(Porter).Snippet(text, false, 16)
	if !ok || !strings.Contains(got, "**alpha** meets **beta** here") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("snippet %q", got)
	}
	if n := strings.Count(got, " ") + 1; n > 16 {
		t.Errorf("snippet of %d words, want at most 16: %q", n, got)
	}
}

// TestSnippetWorkIsLinear: a megabyte of one repeated word, the input
// that made the engines' snippets quadratic, is read once.
func TestSnippetWorkIsLinear(t *testing.T) {
	text := strings.Repeat("alpha ", 1<<20/6)
	q, _ := Parse(strings.Repeat("alpha ", 32))
	h := q.Highlighter(Porter)
	got, ok := h.Snippet(text, false, 32)
	if !ok || strings.Count(got, "**alpha**") != 32 || h.Examined != len(text) {
		t.Errorf("snippet %q (%v), examined %d bytes of %d", got, ok, h.Examined, len(text))
	}
}
