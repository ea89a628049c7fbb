package relevance

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/model"
)

// wordsUpTo returns every word of the letters given, of one to n letters.
func wordsUpTo(letters string, n int) []string {
	out := []string{""}
	var all []string
	for range n {
		var next []string
		for _, w := range out {
			for i := 0; i < len(letters); i++ {
				next = append(next, w+letters[i:i+1])
			}
		}
		all = append(all, next...)
		out = next
	}
	return all
}

// stemWords are words the prefix rule must hold for: every word of up to
// four letters, longer ones over the letters that steer Porter2 (vowels,
// y, and the consonants of its suffixes), and the forms it treats apart.
func stemWords() []string {
	words := wordsUpTo("abcdefghijklmnopqrstuvwxyz", 4)
	words = append(words, wordsUpTo("aeiouybdglnst", 5)...)
	for _, suffix := range []string{"ing", "ingly", "ed", "edly", "eed", "eedly", "ies", "ied", "sses", "s", "ly",
		"ational", "ization", "fulness", "ousli", "biliti", "ogi", "li", "ement", "ative", "alize", "iciti"} {
		for _, head := range wordsUpTo("aeyblst", 3) {
			words = append(words, head+suffix)
		}
	}
	return append(words, "dying", "lying", "tying", "skis", "skies", "idly", "gently", "ugly", "early", "only",
		"singly", "generously", "communism", "arsenal", "yelling", "eying", "oed", "aing")
}

func stemString(w string) string { return string(stem([]byte(w))) }

// TestStemKeepsWordStart checks what stemPrefixes rests on: a stem opens
// with its word's first two letters (its first, when the stem has one
// letter), except for the three exceptional forms it names.
func TestStemKeepsWordStart(t *testing.T) {
	for _, w := range stemWords() {
		st := stemString(w)
		n := min(2, len(st), len(w))
		if st == "" || st[:n] != w[:n] {
			switch w {
			case "dying", "lying", "tying":
				continue
			}
			t.Errorf("stem(%q) = %q: does not open with the word's first letters", w, st)
		}
	}
}

// TestStemPrefixesNeverRuleOutAStem: for a profile of every stem of the
// words above, no word whose stem is among them is ruled out, and words
// sharing no start with them are.
func TestStemPrefixesNeverRuleOutAStem(t *testing.T) {
	words := stemWords()
	var all stemPrefixes
	for _, w := range words {
		all.add(stemString(w))
	}
	for _, w := range words {
		if !all.mayStemTo([]byte(w)) {
			t.Fatalf("%q is ruled out though its stem %q is a profile stem", w, stemString(w))
		}
	}
	var few stemPrefixes
	for _, st := range []string{"die", "schedul", "a", "会", "go"} {
		few.add(st)
	}
	// A word of one or two letters is its own stem: it is ruled out
	// unless it is one of them.
	for w, want := range map[string]bool{"dying": true, "scheduling": true, "schism": true, "avalanche": true,
		"weather": false, "policies": false, "do": false, "tying": true, "typing": false, "a": true, "i": false,
		"go": true, "ga": false, "di": false, "sc": false, "av": false, "goes": true} {
		if got := few.mayStemTo([]byte(w)); got != want {
			t.Errorf("mayStemTo(%q) = %v, want %v", w, got, want)
		}
	}
}

// referenceScore is Score as it was before prefixes and hits: every word
// stemmed, phrases counted over the ids of all words.
func referenceScore(s *Scorer, title, body string) Result {
	if len(s.keywords) == 0 && len(s.exclusions) == 0 {
		return Result{Score: 1}
	}
	var tk tokenizer
	encode := func(text string) []int32 {
		var ids []int32
		tk.each(text, func(st []byte) {
			id, ok := s.vocab[string(st)]
			if !ok {
				id = -1 // no profile term's stem
			}
			ids = append(ids, id)
		})
		return ids
	}
	count := func(ids, phrase []int32, limit int) int {
		n := 0
		for i := 0; i+len(phrase) <= len(ids); i++ {
			if !slices.Equal(ids[i:i+len(phrase)], phrase) {
				continue
			}
			if n++; n >= limit {
				return n
			}
			i += len(phrase) - 1
		}
		return n
	}
	t, b := encode(title), encode(body)
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

func sameResult(a, b Result) bool {
	return math.Float64bits(a.Score) == math.Float64bits(b.Score) && slices.Equal(a.Matched, b.Matched) &&
		a.Excluded == b.Excluded
}

// TestScoreMatchesReference: scores, matched terms and exclusions are
// those of every word stemmed and counted, on phrases that repeat and
// overlap, one-letter terms, the exceptional forms and words outside the
// profile between a phrase's words.
func TestScoreMatchesReference(t *testing.T) {
	profiles := []model.RelevanceProfile{
		benchProfile(),
		{Keywords: kw("new new york", 1.0, "new york", 2.0, "a", 1.0, "dying star", 3.0, "x", 1.0), Exclusions: []string{"lying"}},
		{Keywords: kw("schedule schedule", 1.0, "ties", 1.0, "Tying knots", 2.0, "São Paulo", 1.0, "最新", 1.0)},
	}
	texts := []string{
		"",
		benchBody(),
		"New new new York new York: a new, new york times report on dying stars and a dying-star.",
		"Scheduling schedules schedule; they scheduled the schedule's schedulers. Ties tied, tying knots, tied knots.",
		"Lying in São Paulo: 最新AI技術 x-ray X a b c new york",
		"The team behind the project announced that its scheduler reduces tail latency for GPU inference in the data center.",
	}
	for i, p := range profiles {
		s := NewScorer(p)
		for _, title := range texts {
			for _, body := range texts {
				got, want := s.Score(title, body), referenceScore(s, title, body)
				if !sameResult(got, want) {
					t.Errorf("profile %d, %q / %.40q: %v, want %v", i, title, body, got, want)
				}
			}
		}
	}
}

// FuzzScoreMatchesReference: the same on any profile and text.
func FuzzScoreMatchesReference(f *testing.F) {
	f.Add("dying star lying", "a dying star, lying ties and tying knots x y z")
	f.Add("new new york", strings.Repeat("new ", 5)+"york new york")
	f.Fuzz(func(t *testing.T, terms, text string) {
		s := NewScorer(profileForFuzz(terms))
		if got, want := s.Score(text, terms+" "+text), referenceScore(s, text, terms+" "+text); !sameResult(got, want) {
			t.Fatalf("%v, want %v", got, want)
		}
	})
}
