// Package textquery reads what a person types into a search box —
// words, "quoted phrases", prefix* terms, -exclusions and OR — and
// renders it for each database's full-text engine: an FTS5 MATCH
// expression for SQLite, a tsquery expression for PostgreSQL. The user's
// text never reaches either engine's query parser as syntax: every term is
// reduced to words (letters and digits) or passed as a bound value to a
// function that cannot fail on it, so no query raises an engine error.
// What cannot be searched is an *Error naming the problem.
package textquery

import (
	"fmt"
	"strings"
	"unicode"
)

// Limits of one query: beyond them the query is refused, not cut.
const (
	MaxLength = 500 // characters
	// MaxTerms bounds the different words, phrases and prefixes,
	// exclusions included; a term typed twice counts once.
	MaxTerms = 32
	// MinPrefix is the fewest letters before a *: a one-letter prefix
	// matches most of an index and is never what a person meant.
	MinPrefix = 2
)

// Kind is what a term asks for.
type Kind int

// The kinds of term.
const (
	Word   Kind = iota // a word (or a token such as node.js) anywhere
	Phrase             // "these words" in this order
	Prefix             // a word starting so: releas*
)

// Term is one searched word, phrase or prefix.
type Term struct {
	Kind Kind
	// Raw is the text as typed, without the operators (quotes, -, *).
	Raw string
	// Words are Raw's runs of letters and digits, lower-cased: what
	// SQLite's tokenizer makes of it too.
	Words []string
}

// Query is a parsed search: every group must match (AND), a group matches
// when one of its terms does (OR), and no excluded term may match.
type Query struct {
	Groups  [][]Term
	Exclude []Term
}

// Error is a query that cannot be searched; Message says why.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func errorf(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// token is one piece of the input before grouping.
type token struct {
	term    Term
	exclude bool
	or      bool // the OR operator
}

// Parse reads a query. Words are ANDed; OR (in capitals) between two
// terms makes them alternatives and binds tighter than the implicit AND
// (go OR rust generics: (go OR rust) AND generics); "…" is a phrase, an
// unclosed quote runs to the end; a trailing * makes a prefix; a leading
// - excludes. A dangling OR is ignored. Terms without a letter or digit
// ("!!") are dropped.
func Parse(s string) (Query, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Query{}, errorf("the query is empty: give at least one word to search for")
	}
	if n := len([]rune(s)); n > MaxLength {
		return Query{}, errorf("the query is %d characters long; at most %d are searched", n, MaxLength)
	}
	if strings.ContainsRune(s, 0) {
		return Query{}, errorf("the query contains a NUL character")
	}
	toks, err := lex(s)
	if err != nil {
		return Query{}, err
	}
	q, err := group(toks)
	if err != nil {
		return Query{}, err
	}
	q = q.simplified()
	if n := q.terms(); n > MaxTerms {
		return Query{}, errorf("the query has %d different terms; at most %d are searched", n, MaxTerms)
	}
	return q, nil
}

// group joins terms around OR into groups, and sets exclusions apart.
func group(toks []token) (Query, error) {
	var q Query
	pendingOr := false
	for i, t := range toks {
		switch {
		case t.or:
			// OR joins the group before it to the term after it; one with
			// nothing on a side is ignored.
			pendingOr = len(q.Groups) > 0 && i > 0 && !toks[i-1].exclude && !toks[i-1].or
		case t.exclude:
			if pendingOr {
				return Query{}, errorf("%q cannot be an alternative of OR: an exclusion applies to the whole query", "-"+t.term.Raw)
			}
			q.Exclude = append(q.Exclude, t.term)
		case pendingOr:
			last := len(q.Groups) - 1
			q.Groups[last] = append(q.Groups[last], t.term)
			pendingOr = false
		default:
			q.Groups = append(q.Groups, []Term{t.term})
		}
	}
	if len(q.Groups) == 0 {
		if len(q.Exclude) > 0 {
			return Query{}, errorf("the query only excludes terms (-word); give at least one word to search for")
		}
		return Query{}, errorf("the query has no words to search for, only punctuation")
	}
	return q, nil
}

// lex splits the input into terms and operators.
func lex(s string) ([]token, error) {
	var out []token
	r := []rune(s)
	for i := 0; i < len(r); {
		if unicode.IsSpace(r[i]) {
			i++
			continue
		}
		exclude := false
		if r[i] == '-' && i+1 < len(r) && !unicode.IsSpace(r[i+1]) {
			exclude = true
			i++
		}
		var t Term
		if r[i] == '"' {
			end := i + 1
			for end < len(r) && r[end] != '"' {
				end++
			}
			t = Term{Kind: Phrase, Raw: strings.TrimSpace(string(r[i+1 : end]))}
			i = end + 1
		} else {
			end := i
			for end < len(r) && !unicode.IsSpace(r[end]) && r[end] != '"' {
				end++
			}
			raw := string(r[i:end])
			i = end
			if raw == "OR" && !exclude {
				out = append(out, token{or: true})
				continue
			}
			t = Term{Kind: Word, Raw: raw}
			if trimmed := strings.TrimRight(raw, "*"); trimmed != raw {
				t = Term{Kind: Prefix, Raw: trimmed}
			}
		}
		t.Words = words(t.Raw)
		if len(t.Words) == 0 {
			continue
		}
		if t.Kind == Phrase && len(t.Words) == 1 {
			t.Kind = Word
		}
		if t.Kind == Prefix {
			if last := t.Words[len(t.Words)-1]; len([]rune(last)) < MinPrefix {
				return nil, errorf("the prefix %q needs at least %d letters before the *", t.Raw+"*", MinPrefix)
			}
		}
		out = append(out, token{term: t, exclude: exclude})
	}
	return out, nil
}

// words are the runs of letters and digits of s, lower-cased.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
