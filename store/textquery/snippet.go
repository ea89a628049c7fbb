package textquery

import (
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/porter"

	"github.com/feedpoller/feedpoller/store/lexemes"
)

// Stemmer reduces a folded word (lower case, accents removed) to the stem
// an engine's index holds for it.
type Stemmer func(word string) string

// Porter is the stemmer of SQLite's porter tokenizer, the original Porter
// algorithm, which leaves words shorter than 3 or longer than 64
// characters, and words with other than ASCII letters, as they are.
func Porter(word string) string {
	if len(word) < 3 || len(word) > 64 || !asciiLetters(word) {
		return word
	}
	env := snowballstem.NewEnv(word)
	porter.Stem(env)
	return env.Current()
}

func asciiLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Highlighter finds a query's terms in text the way the engines match
// them (folded, stemmed), to build the snippet of a search result. The
// engines' own snippet functions re-read an article's whole text and
// score every placement of every occurrence of every term, which costs
// the square of the occurrences: a megabyte of one repeated word took
// minutes. A Highlighter reads only the text it is handed, once, and
// picks the best passage in time linear in that text.
type Highlighter struct {
	stem  Stemmer
	terms []hlTerm
	stems map[string]string // folded word → stem, within one search
	// Examined counts the bytes of text read, for tests and benchmarks
	// that check the work of a search is bounded.
	Examined int
}

// hlTerm is one searched term as a sequence of stems; a prefix term
// matches a last word that starts with its last stem.
type hlTerm struct {
	stems  []string
	prefix bool
}

// Highlighter prepares the highlighting of q's terms (not its
// exclusions) with the engine's stemmer.
func (q Query) Highlighter(stem Stemmer) *Highlighter {
	h := &Highlighter{stem: stem, stems: map[string]string{}}
	for _, g := range q.Groups {
		for _, t := range g {
			ht := hlTerm{stems: make([]string, len(t.Words)), prefix: t.Kind == Prefix}
			for i, w := range t.Words {
				w = lexemes.Fold(w)
				if !(ht.prefix && i == len(t.Words)-1) {
					w = h.stemOf(w)
				}
				ht.stems[i] = w
			}
			h.terms = append(h.terms, ht)
		}
	}
	return h
}

func (h *Highlighter) stemOf(folded string) string {
	s, ok := h.stems[folded]
	if !ok {
		s = h.stem(folded)
		h.stems[folded] = s
	}
	return s
}

// textWord is one word of a text: its bytes, folded form and stem.
type textWord struct {
	start, end   int
	folded, stem string
}

// hlMatch is an occurrence of term at token pos, n tokens long.
type hlMatch struct{ pos, n, term int }

// Snippet is the passage of text of at most maxTokens words around its
// best match (the most different terms, then the most occurrences, the
// earliest on a tie), each match between ** and **, with … where text
// was left out before or after it; more says that text is itself the
// start of a longer text. Without a match it is the text's first words,
// and ok is false.
func (h *Highlighter) Snippet(text string, more bool, maxTokens int) (snippet string, ok bool) {
	h.Examined += len(text)
	toks := h.tokens(text)
	if len(toks) == 0 {
		return "", false
	}
	matches := h.matches(toks)
	start := 0
	if len(matches) > 0 {
		start = bestWindow(matches, len(h.terms), maxTokens)
	}
	end := min(start+maxTokens, len(toks))
	start = max(0, min(start, end-maxTokens))
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	at := toks[start].start
	for _, m := range matches {
		if m.pos < start || m.pos+m.n > end {
			continue
		}
		b.WriteString(text[at:toks[m.pos].start])
		b.WriteString("**" + text[toks[m.pos].start:toks[m.pos+m.n-1].end] + "**")
		at = toks[m.pos+m.n-1].end
	}
	b.WriteString(text[at:toks[end-1].end])
	if end == len(toks) {
		b.WriteString(strings.TrimRightFunc(text[toks[end-1].end:], unicode.IsSpace))
	}
	if end < len(toks) || more {
		b.WriteString("…")
	}
	return b.String(), len(matches) > 0
}

// tokens splits text into words as the engines' tokenizers do: runs of
// letters, digits and combining marks (lexemes.Each).
func (h *Highlighter) tokens(text string) []textWord {
	var toks []textWord
	lexemes.Each(text, func(start, end int) {
		f := lexemes.Fold(text[start:end])
		toks = append(toks, textWord{start: start, end: end, folded: f, stem: h.stemOf(f)})
	})
	return toks
}

// matches lists the occurrences of the terms, in text order; where two
// start at one word, the first term listed wins.
func (h *Highlighter) matches(toks []textWord) []hlMatch {
	var out []hlMatch
	for pos := 0; pos < len(toks); pos++ {
		for ti, t := range h.terms {
			if t.matchAt(toks, pos) {
				out = append(out, hlMatch{pos: pos, n: len(t.stems), term: ti})
				pos += len(t.stems) - 1
				break
			}
		}
	}
	return out
}

func (t hlTerm) matchAt(toks []textWord, pos int) bool {
	if pos+len(t.stems) > len(toks) {
		return false
	}
	for i, s := range t.stems {
		tok := toks[pos+i]
		if t.prefix && i == len(t.stems)-1 {
			if !strings.HasPrefix(tok.stem, s) && !strings.HasPrefix(tok.folded, s) {
				return false
			}
		} else if tok.stem != s {
			return false
		}
	}
	return true
}

// bestWindow is the first word of the window of maxTokens words holding
// the most different terms, then the most matches (the earliest on a
// tie), moved back so that its matches sit in its middle. Two indexes
// walk the matches once.
func bestWindow(ms []hlMatch, terms, maxTokens int) int {
	count := make([]int, terms)
	distinct, bestScore, best := 0, -1, 0
	j := 0
	for i := range ms {
		for j < len(ms) && ms[j].pos+ms[j].n <= ms[i].pos+maxTokens {
			if count[ms[j].term] == 0 {
				distinct++
			}
			count[ms[j].term]++
			j++
		}
		if score := distinct*len(ms) + (j - i); score > bestScore {
			bestScore, best = score, i
		}
		if j > i { // ms[i] leaves the window
			count[ms[i].term]--
			if count[ms[i].term] == 0 {
				distinct--
			}
		} else {
			j = i + 1
		}
	}
	first, last := ms[best].pos, ms[best].pos+ms[best].n
	for k := best; k < len(ms) && ms[k].pos+ms[k].n <= first+maxTokens; k++ {
		last = ms[k].pos + ms[k].n
	}
	return max(0, first-(maxTokens-(last-first))/2)
}
