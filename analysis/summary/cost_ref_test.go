package summary

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// referenceCosine is cosine as it was, merging the words with a branch
// on their order.
func referenceCosine(a, b *sentence) float64 {
	if a.norm == 0 || b.norm == 0 {
		return 0
	}
	dot := 0.0
	i, j := 0, 0
	for i < len(a.words) && j < len(b.words) {
		switch {
		case a.words[i] < b.words[j]:
			i++
		case a.words[i] > b.words[j]:
			j++
		default:
			dot += a.freq[i] * b.freq[j]
			i++
			j++
		}
	}
	return dot / (a.norm * b.norm)
}

// TestCosineMatchesReference: the same bits on sentences that share
// none, some or all of their words, small vocabularies and large.
func TestCosineMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sent := func(n int, vocab uint64) *sentence {
		ws := make([]uint64, n)
		for i := range ws {
			ws[i] = rng.Uint64N(vocab)
			if rng.IntN(8) == 0 {
				ws[i] = math.MaxUint64 - ws[i] // words at both ends of the order
			}
		}
		slices.Sort(ws)
		s := &sentence{}
		s.setWords(ws)
		return s
	}
	for range 2000 {
		vocab := uint64(1 + rng.IntN(60))
		a, b := sent(rng.IntN(30), vocab), sent(rng.IntN(30), vocab)
		for _, p := range [][2]*sentence{{a, b}, {b, a}, {a, a}} {
			got, want := cosine(p[0], p[1]), referenceCosine(p[0], p[1])
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("cosine(%v, %v) = %v, want %v", p[0].words, p[1].words, got, want)
			}
		}
	}
}

// TestCountFieldsIsFieldsLen: the words strings.Fields finds, ASCII
// spaces, Unicode spaces and invalid UTF-8 alike.
func TestCountFieldsIsFieldsLen(t *testing.T) {
	for _, s := range []string{"", " ", "one", " two  words ", "tab\tnl\nvt\vff\fcr\r", "a\u00a0b\u2003c\u3000d",
		"\u0085x", "bad\xff\xfe bytes", "“Quoted” — dash à la", "x\x7fy", "\x1cfile\x1fsep"} {
		if got, want := countFields(s), len(strings.Fields(s)); got != want {
			t.Errorf("countFields(%q) = %d, want %d", s, got, want)
		}
	}
}
