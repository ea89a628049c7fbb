package textquery

import (
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/store/lexemes"
)

// FTS5 renders the query as an FTS5 MATCH expression. Every term becomes
// a string of its words ("node js", which the tokenizer reads as a
// phrase), so no character of the input is FTS5 syntax; a prefix is
// that string followed by *.
func (q Query) FTS5() string {
	return q.fts5()
}

// FTS5In is FTS5 limited to the named columns of the index:
// {a b} : (query).
func (q Query) FTS5In(columns ...string) string {
	return "{" + strings.Join(columns, " ") + "} : (" + q.fts5() + ")"
}

func (q Query) fts5() string {
	and := make([]string, len(q.Groups))
	for i, g := range q.Groups {
		alts := make([]string, len(g))
		for j, t := range g {
			alts[j] = fts5Term(t)
		}
		and[i] = strings.Join(alts, " OR ")
		if len(alts) > 1 {
			and[i] = "(" + and[i] + ")"
		}
	}
	out := strings.Join(and, " AND ")
	if len(q.Exclude) == 0 {
		return out
	}
	not := make([]string, len(q.Exclude))
	for i, t := range q.Exclude {
		not[i] = fts5Term(t)
	}
	return "(" + out + ") NOT (" + strings.Join(not, " OR ") + ")"
}

// fts5Term quotes a term's words: they hold letters and digits only, so
// the string needs no escaping.
func fts5Term(t Term) string {
	s := `"` + strings.Join(t.Words, " ") + `"`
	if t.Kind == Prefix {
		s += " *"
	}
	return s
}

// TSQuery renders the query as a PostgreSQL expression of type tsquery,
// with ? placeholders and their arguments: one tsquery literal of the
// lexemes of its terms, made by package lexemes as the documents' vectors
// were (so the server's text parser never reads the query either). A
// term of several words ("release notes", node.js) is a phrase of their
// lexemes, <-> between neighbours and <N> across stop words; a prefix's
// last word is matched with :*, or as its stem (lexemes.PrefixOf). A term of stop words
// only matches nothing and is left out, as PostgreSQL's own query
// functions did; a query left with nothing matches nothing.
func (q Query) TSQuery() (string, []any) {
	return "?::tsquery", []any{q.tsquery()}
}

func (q Query) tsquery() string {
	var and []string
	for _, g := range q.Groups {
		var alts []string
		for _, t := range g {
			if s := tsTerm(t); s != "" {
				alts = append(alts, s)
			}
		}
		switch len(alts) {
		case 0:
		case 1:
			and = append(and, alts[0])
		default:
			and = append(and, "("+strings.Join(alts, " | ")+")")
		}
	}
	if len(and) == 0 {
		return ""
	}
	for _, t := range q.Exclude {
		if s := tsTerm(t); s != "" {
			and = append(and, "!"+s)
		}
	}
	return strings.Join(and, " & ")
}

// tsTerm is one term as a tsquery: a lexeme, or a parenthesised phrase;
// "" when it has no lexeme.
func tsTerm(t Term) string {
	var words []string
	lexemes.Each(t.Raw, func(start, end int) { words = append(words, t.Raw[start:end]) })
	var items []string
	gap := 0 // positions since the last item
	for i, w := range words {
		gap++
		var item string
		if t.Kind == Prefix && i == len(words)-1 {
			prefix, stem := lexemes.PrefixOf(w)
			item = lexemes.Quote(prefix) + ":*"
			if stem != "" {
				item = "(" + item + " | " + lexemes.Quote(stem) + ")"
			}
		} else if lex := lexemes.Lexeme(w); lex != "" {
			item = lexemes.Quote(lex)
		} else {
			continue
		}
		switch {
		case len(items) == 0:
		case gap == 1:
			items = append(items, "<->")
		default:
			items = append(items, "<"+strconv.Itoa(gap)+">")
		}
		items = append(items, item)
		gap = 0
	}
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return "(" + strings.Join(items, " ") + ")"
}
