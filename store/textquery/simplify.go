package textquery

import (
	"slices"
	"strings"

	"github.com/feedpoller/feedpoller/store/lexemes"
)

// simplified drops what cannot change which articles match but costs the
// engines work: a term repeated within a group, a group or exclusion
// repeated, and stop words beside other words. The engines evaluate each
// term of the expression separately (FTS5 builds one phrase iterator per
// term, and its snippets cost the square of the terms' occurrences), so
// "the the the …" must not be 32 terms.
//
// Stop words (the, of, …) are dropped as PostgreSQL's english
// configuration drops them, so that both databases read a query alike:
// a group whose every alternative is a stop word, while another group
// remains, and every excluded stop word. A query of stop words only keeps
// them (SQLite then finds them; PostgreSQL finds nothing). Phrases keep
// their stop words: they say where the other words stand.
func (q Query) simplified() Query {
	var out Query
	seen := map[string]bool{}
	for _, g := range q.Groups {
		g = uniqueTerms(g)
		k := groupKey(g)
		if seen[k] {
			continue
		}
		seen[k] = true
		out.Groups = append(out.Groups, g)
	}
	if kept := slices.DeleteFunc(slices.Clone(out.Groups), allStopWords); len(kept) > 0 {
		out.Groups = kept
	}
	for _, t := range uniqueTerms(q.Exclude) {
		if !t.isStopWord() {
			out.Exclude = append(out.Exclude, t)
		}
	}
	return out
}

// terms counts the query's terms, exclusions included.
func (q Query) terms() int {
	n := len(q.Exclude)
	for _, g := range q.Groups {
		n += len(g)
	}
	return n
}

// key identifies what a term matches: its kind and its words.
func (t Term) key() string {
	return string(rune('0'+t.Kind)) + strings.Join(t.Words, " ")
}

// isStopWord: a word (not a phrase or prefix) all of whose parts are
// stop words ("the", "it's").
func (t Term) isStopWord() bool {
	if t.Kind != Word {
		return false
	}
	for _, w := range t.Words {
		if !lexemes.IsStopWord(w) {
			return false
		}
	}
	return true
}

func allStopWords(g []Term) bool {
	for _, t := range g {
		if !t.isStopWord() {
			return false
		}
	}
	return true
}

// uniqueTerms keeps the first of terms that match alike.
func uniqueTerms(ts []Term) []Term {
	seen := map[string]bool{}
	var out []Term
	for _, t := range ts {
		if k := t.key(); !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// groupKey identifies a group whatever the order of its alternatives.
func groupKey(g []Term) string {
	keys := make([]string, len(g))
	for i, t := range g {
		keys[i] = t.key()
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x00")
}
