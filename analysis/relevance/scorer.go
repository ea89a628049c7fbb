package relevance

import (
	"github.com/feedpoller/feedpoller/model"
	"math"
	"strconv"
	"strings"
)

// Result explains one score.
type Result struct {
	// Score is in [0, 1]; see the package documentation for the formula.
	Score float64
	// Matched lists the profile keywords found in the title or body, as
	// written in the profile and in profile order. It is filled even when
	// an exclusion fired, to show what was matched anyway.
	Matched []string
	// Excluded is the exclusion term that fired, "" if none did.
	Excluded string
}

// Scorer scores articles against one relevance profile. It is built once per
// profile and is safe for concurrent use: scoring reads it and never
// changes it.
type Scorer struct {
	keywords    []term
	exclusions  []term
	totalWeight float64
	threshold   float64
	// vocab numbers every stem that occurs in a profile term, so that an
	// article is compared as a sequence of small integers and words outside
	// the profile cost one map lookup each.
	vocab map[string]int32
	// prefixes are those of vocab's stems: an article's word that shares
	// none is not stemmed.
	prefixes stemPrefixes
}

// term is a profile term compiled to stem ids.
type term struct {
	text   string
	ids    []int32
	weight float64
}

// bodySaturation[h] = min(1, log1p(h)/log1p(3)) for h body hits.
var bodySaturation = [4]float64{0, math.Log1p(1) / math.Log1p(3), math.Log1p(2) / math.Log1p(3), 1}

// NewScorer compiles a profile. Terms that contain no word are ignored; a
// threshold outside [0, 1] is clamped, and NaN counts as 0.
func NewScorer(p model.RelevanceProfile) *Scorer {
	s := &Scorer{vocab: make(map[string]int32), threshold: clamp01(p.Threshold)}
	var tk tokenizer
	compile := func(text string, weight float64) (term, bool) {
		t := term{text: text, weight: weight}
		tk.each(text, func(st []byte) {
			id, ok := s.vocab[string(st)]
			if !ok {
				id = int32(len(s.vocab))
				s.vocab[string(st)] = id
			}
			t.ids = append(t.ids, id)
		})
		return t, len(t.ids) > 0
	}
	for _, k := range p.Keywords {
		w := k.Weight
		if !(w > 0) || math.IsInf(w, 0) {
			w = 1
		}
		if t, ok := compile(k.Term, w); ok {
			s.keywords = append(s.keywords, t)
			s.totalWeight += w
		}
	}
	for _, e := range p.Exclusions {
		if t, ok := compile(e, 0); ok {
			s.exclusions = append(s.exclusions, t)
		}
	}
	for st := range s.vocab {
		s.prefixes.add(st)
	}
	return s
}

// Score rates an article by its title and body (plain text or Markdown).
func (s *Scorer) Score(title, body string) Result {
	if len(s.keywords) == 0 && len(s.exclusions) == 0 {
		return Result{Score: 1}
	}
	tk := tokenizer{only: &s.prefixes}
	t := s.encode(&tk, title)
	b := s.encode(&tk, body)

	var r Result
	for _, e := range s.exclusions {
		if count(t, e.ids, 1) > 0 || count(b, e.ids, 1) > 0 {
			r.Excluded = e.text
			break
		}
	}
	if len(s.keywords) == 0 {
		if r.Excluded == "" {
			r.Score = 1
		}
		return r
	}
	var sum float64
	for _, k := range s.keywords {
		inTitle := count(t, k.ids, 1) > 0
		hits := count(b, k.ids, len(bodySaturation)-1)
		if !inTitle && hits == 0 {
			continue
		}
		r.Matched = append(r.Matched, k.text)
		c := bodySaturation[hits]
		if inTitle {
			c += 2
		}
		sum += k.weight * c
	}
	if r.Excluded == "" {
		r.Score = clamp01(sum / (3 * s.totalWeight))
	}
	return r
}

// Relevant reports whether a scored article should be promoted: not
// excluded and at or above the profile's threshold.
func (s *Scorer) Relevant(r Result) bool {
	return r.Excluded == "" && r.Score >= s.threshold
}

// hit is a word of an article whose stem a profile term uses: its place
// among the article's words and the stem's id.
type hit struct{ pos, id int32 }

// encode returns the words of text whose stems the profile uses, in
// order: most words are in no term, and phrases are matched over the
// hits alone.
func (s *Scorer) encode(tk *tokenizer, text string) []hit {
	var hits []hit
	pos := int32(0)
	tk.each(text, func(st []byte) {
		if st != nil {
			if id, ok := s.vocab[string(st)]; ok {
				hits = append(hits, hit{pos: pos, id: id})
			}
		}
		pos++
	})
	return hits
}

// count returns how many times phrase occurs in the text whose hits are
// given, stopping at limit; occurrences do not overlap. A phrase occurs
// where its ids are hits at consecutive places.
func count(hits []hit, phrase []int32, limit int) int {
	n := 0
	first := phrase[0]
	for i := 0; i+len(phrase) <= len(hits); i++ {
		if hits[i].id != first || !phraseAt(hits, i, phrase) {
			continue
		}
		n++
		if n >= limit {
			return n
		}
		i += len(phrase) - 1
	}
	return n
}

func phraseAt(hits []hit, i int, phrase []int32) bool {
	for j := 1; j < len(phrase); j++ {
		if h := hits[i+j]; h.id != phrase[j] || h.pos != hits[i].pos+int32(j) {
			return false
		}
	}
	return true
}

func clamp01(x float64) float64 {
	switch {
	case !(x >= 0): // also NaN
		return 0
	case x > 1:
		return 1
	}
	return x
}

// String describes a result for logs, e.g. "0.67 [schedule, cron]".
func (r Result) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatFloat(r.Score, 'f', 2, 64))
	b.WriteString(" [")
	b.WriteString(strings.Join(r.Matched, ", "))
	b.WriteString("]")
	if r.Excluded != "" {
		b.WriteString(" excluded by ")
		b.WriteString(r.Excluded)
	}
	return b.String()
}
