package textquery

import "strings"

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

// Config is the text search configuration of the PostgreSQL index.
const Config = "english"

// TSQuery renders the query as a PostgreSQL expression of type tsquery,
// with ? placeholders and their arguments. A word or phrase is
// websearch_to_tsquery of the term as typed, quoted (which never fails on
// any input, and parses the term as to_tsvector parsed the documents: node.js
// stays one lexeme); a prefix is to_tsquery of its words, which hold
// letters and digits only, joined by <-> with :* on the last.
func (q Query) TSQuery() (string, []any) {
	var args []any
	leaf := func(t Term) string {
		if t.Kind == Prefix {
			quoted := make([]string, len(t.Words))
			copy(quoted, t.Words)
			quoted[len(quoted)-1] += ":*"
			args = append(args, strings.Join(quoted, " <-> "))
			return "to_tsquery('" + Config + "', ?)"
		}
		args = append(args, `"`+strings.ReplaceAll(t.Raw, `"`, " ")+`"`)
		return "websearch_to_tsquery('" + Config + "', ?)"
	}
	and := make([]string, len(q.Groups))
	for i, g := range q.Groups {
		alts := make([]string, len(g))
		for j, t := range g {
			alts[j] = leaf(t)
		}
		and[i] = "(" + strings.Join(alts, " || ") + ")"
	}
	out := strings.Join(and, " && ")
	for _, t := range q.Exclude {
		out += " && !!" + leaf(t)
	}
	return "(" + out + ")", args
}
