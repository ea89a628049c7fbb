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
		pg   string // the tsquery expression's shape, arguments left out
	}{
		{`go generics`, `"go" AND "generics"`, `(websearch) && (websearch)`},
		{`"release notes" go`, `"release notes" AND "go"`, `(websearch) && (websearch)`},
		{`releas*`, `"releas" *`, `(to_tsquery)`},
		{`go -rust`, `("go") NOT ("rust")`, `(websearch) && !!websearch`},
		{`go OR rust generics`, `("go" OR "rust") AND "generics"`, `(websearch || websearch) && (websearch)`},
		{`node.js "unclosed phrase`, `"node js" AND "unclosed phrase"`, `(websearch) && (websearch)`},
		{`OR go OR`, `"go"`, `(websearch)`},
		{`go -"breaking change" !!`, `("go") NOT ("breaking change")`, `(websearch) && !!websearch`},
		{`NEAR("a" b) AND col:x ^y`, `"near" AND "b" AND "col x" AND "y"`, ``},
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
		shape := strings.NewReplacer("websearch_to_tsquery('english', ?)", "websearch", "to_tsquery('english', ?)", "to_tsquery").Replace(expr)
		if c.pg != "" && shape != "("+c.pg+")" {
			t.Errorf("Parse(%q).TSQuery() = %s, want (%s)", c.in, shape, c.pg)
		}
		if n := strings.Count(expr, "?"); n != len(args) {
			t.Errorf("Parse(%q).TSQuery(): %d placeholders, %d arguments", c.in, n, len(args))
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
