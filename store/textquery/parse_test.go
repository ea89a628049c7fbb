package textquery

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseRendersEachEngine(t *testing.T) {
	cases := []struct {
		in   string
		fts5 string
		pg   string // the tsquery literal
	}{
		{`go generics`, `"go" AND "generics"`, `'go' & 'generic'`},
		{`"release notes" go`, `"release notes" AND "go"`, `('releas' <-> 'note') & 'go'`},
		{`releas*`, `"releas" *`, `('releas':* | 'relea')`},
		{`happy*`, `"happy" *`, `('happy':* | 'happi')`},
		{`go -rust`, `("go") NOT ("rust")`, `'go' & !'rust'`},
		{`go OR rust generics`, `("go" OR "rust") AND "generics"`, `('go' | 'rust') & 'generic'`},
		{`node.js "unclosed phrase`, `"node js" AND "unclosed phrase"`, `('node' <-> 'js') & ('unclos' <-> 'phrase')`},
		{`OR go OR`, `"go"`, `'go'`},
		{`go -"breaking change" !!`, `("go") NOT ("breaking change")`, `'go' & !('break' <-> 'chang')`},
		{`"state of the art" Zürich`, `"state of the art" AND "zürich"`, `('state' <3> 'art') & 'zurich'`},
		{`"the end"`, `"the end"`, `'end'`},
		{`the`, `"the"`, ``},
		{`release no*`, `"release" AND "no" *`, `'releas' & 'no':*`},
		{`NEAR("a" b) AND col:x ^y`, `"near" AND "b" AND "col x" AND "y"`, `'near' & 'b' & ('col' <-> 'x') & 'y'`},
	}
	for _, c := range cases {
		q, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if got := q.FTS5(); got != c.fts5 {
			t.Errorf("Parse(%q).FTS5() = %s, want %s", c.in, got, c.fts5)
		}
		expr, args := q.TSQuery()
		if expr != "?::tsquery" || len(args) != 1 {
			t.Fatalf("Parse(%q).TSQuery() = %s %q, want one tsquery argument", c.in, expr, args)
		}
		if args[0] != c.pg {
			t.Errorf("Parse(%q).TSQuery() = %q, want %q", c.in, args[0], c.pg)
		}
	}
}

func TestParseRefusesWhatCannotBeSearched(t *testing.T) {
	cases := map[string]string{
		"":                       "empty",
		"   ":                    "empty",
		"-go -rust":              "only excludes",
		`!! ** ""`:               "no words",
		"a*":                     "at least 2 letters",
		"go OR -rust":            "cannot be an alternative of OR",
		strings.Repeat("x", 501): "at most 500",
		manyWords(33):            "at most 32",
		"go\x00":                 "NUL",
	}
	for in, want := range cases {
		_, err := Parse(in)
		var qe *Error
		if !errors.As(err, &qe) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%.30q) = %v, want an *Error saying %q", in, err, want)
		}
	}
}

// manyWords is a query of n different words.
func manyWords(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(words, " ")
}

// TestParseDropsRepeatsAndStopWords: a term typed again, a group or an
// exclusion repeated, and stop words beside other words are not handed to
// the engines, which evaluate every term of the expression on its own
// (the 32 "the" of a hostile query were 32 FTS5 phrases).
func TestParseDropsRepeatsAndStopWords(t *testing.T) {
	cases := []struct{ in, fts5 string }{
		{strings.TrimSpace(strings.Repeat("the ", 32)), `"the"`},
		{strings.TrimSpace(strings.Repeat("alpha ", 32)), `"alpha"`},
		{strings.Repeat(`"release notes" `, 20) + "go", `"release notes" AND "go"`},
		{`go OR rust go OR rust rust OR go`, `("go" OR "rust")`},
		{`go OR go OR go generics`, `"go" AND "generics"`},
		{`go -rust -rust -Rust`, `("go") NOT ("rust")`},
		{`the history of the web`, `"history" AND "web"`},
		{`"the history of the web"`, `"the history of the web"`},
		{`go -the`, `"go"`},
		{`the OR go web`, `("the" OR "go") AND "web"`},
		{`it's`, `"it s"`},
		{`releas* releas*`, `"releas" *`},
	}
	for _, c := range cases {
		q, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%.40q): %v", c.in, err)
		}
		if got := q.FTS5(); got != c.fts5 {
			t.Errorf("Parse(%.40q).FTS5() = %s, want %s", c.in, got, c.fts5)
		}
	}
	// 32 different words are searched; repeats do not count.
	if _, err := Parse(manyWords(32) + " " + manyWords(32)); err != nil {
		t.Errorf("32 different words typed twice: %v", err)
	}
}
