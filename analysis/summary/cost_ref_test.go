package summary

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cosine is the similarity of two sentences as rank worked it out pair
// by pair before dotProducts: the words merged without a branch on their
// order, the products added in word order.
func cosine(a, b *sentence) float64 {
	if a.norm == 0 || b.norm == 0 {
		return 0
	}
	// The words are merged without a branch on their order, which the
	// processor cannot predict; the products are added in word order, as
	// ever.
	dot := 0.0
	aw, bw := a.words, b.words
	i, j := 0, 0
	for i < len(aw) && j < len(bw) {
		x, y := aw[i], bw[j]
		if x == y {
			dot += a.freq[i] * b.freq[j]
		}
		i += b2i(x <= y)
		j += b2i(y <= x)
	}
	return dot / (a.norm * b.norm)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

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
	texts := []string{"", " ", "one", " two  words ", "tab\tnl\nvt\vff\fcr\r", "a\u00a0b\u2003c\u3000d",
		"\u0085x", "bad\xff\xfe bytes", "“Quoted” — dash à la", "x\x7fy", "\x1cfile\x1fsep"}
	for _, text := range summaryTexts(t) {
		texts = append(texts, text)
		for _, p := range paragraphs(text) {
			texts = append(texts, sentences(p)...)
		}
	}
	for _, s := range texts {
		if got, want := countFields(s), len(strings.Fields(s)); got != want {
			t.Errorf("countFields(%q) = %d, want %d", s, got, want)
		}
	}
}

// referenceRank is rank as it was: every pair's cosine merged from their
// words.
func referenceRank(ss []*sentence) bool {
	cent := make([]float64, len(ss))
	for i := range ss {
		for j := i + 1; j < len(ss); j++ {
			c := cosine(ss[i], ss[j])
			cent[i] += c
			cent[j] += c
		}
	}
	top := slices.Max(cent)
	if top == 0 {
		return false
	}
	for i, s := range ss {
		s.score = (1-positionWeight)*cent[i]/top + positionWeight/(1+float64(s.pos)/3)
	}
	return true
}

// TestRankMatchesReference: the same answer and the same score bits as
// ranking by pairwise cosines, on random sentences (some without words,
// small vocabularies and large) and on the candidates of real articles.
func TestRankMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var sets [][]string
	for _, text := range summaryTexts(t) {
		var ss []string
		eachParagraph(text, func(p string) bool {
			ss = append(ss, sentences(p)...)
			return len(ss) < MaxConsidered
		})
		if len(ss) > 2 { // what Summarize ranks
			sets = append(sets, ss[:min(len(ss), MaxConsidered)])
		}
	}
	check := func(name string, mk func() []*sentence) {
		got, want := mk(), mk()
		okGot, okWant := rank(got), referenceRank(want)
		if okGot != okWant {
			t.Fatalf("%s: rank %v, the reference %v", name, okGot, okWant)
		}
		for i := range got {
			if math.Float64bits(got[i].score) != math.Float64bits(want[i].score) {
				t.Fatalf("%s: sentence %d scores %v, the reference %v", name, i, got[i].score, want[i].score)
			}
		}
	}
	for n, texts := range sets {
		check(fmt.Sprintf("text %d", n), func() []*sentence {
			out := make([]*sentence, len(texts))
			for i, s := range texts {
				out[i] = newSentence(s, i)
			}
			return out
		})
		// The scratch's sentences, a short one's words in the order first
		// met, rank as the sorted ones do.
		sc := summaryScratches.Get().(*summaryScratch)
		got := make([]*sentence, len(texts))
		want := make([]*sentence, len(texts))
		for i, s := range texts {
			got[i], want[i] = sc.newSentence(s, i), newSentence(s, i)
		}
		if okGot, okWant := rank(got), referenceRank(want); okGot != okWant {
			t.Fatalf("text %d: rank of the scratch's sentences %v, the reference %v", n, okGot, okWant)
		}
		for i := range got {
			if math.Float64bits(got[i].score) != math.Float64bits(want[i].score) {
				t.Fatalf("text %d: the scratch's sentence %d scores %v, the reference %v", n, i, got[i].score, want[i].score)
			}
		}
		sc.release()
	}
	for n := range 500 {
		count := 3 + rng.IntN(MaxConsidered-2)
		vocab := uint64(1 + rng.IntN(200))
		words := make([][]uint64, count)
		for i := range words {
			ws := make([]uint64, rng.IntN(25))
			for k := range ws {
				ws[k] = rng.Uint64N(vocab)
			}
			slices.Sort(ws)
			words[i] = ws
		}
		check(fmt.Sprintf("random %d", n), func() []*sentence {
			out := make([]*sentence, count)
			for i, ws := range words {
				out[i] = &sentence{pos: i}
				out[i].setWords(slices.Clone(ws)) // it keeps its words in ws
			}
			return out
		})
	}
	if len(sets) < 50 {
		t.Fatalf("only %d texts", len(sets))
	}
}

// BenchmarkDotProducts: the dot products of MaxConsidered sentences of
// the story set, as rank works them out for a long article.
func BenchmarkDotProducts(b *testing.B) {
	var ss []*sentence
	for _, a := range storySet(b) {
		for _, p := range strings.Split(a.Markdown, "\n\n") {
			for _, s := range sentences(p) {
				if len(ss) < MaxConsidered && countFields(s) >= minSentenceWords {
					ss = append(ss, newSentence(s, len(ss)))
				}
			}
		}
	}
	var sc rankScratch
	for b.Loop() {
		dotProducts(ss, &sc)
	}
}

// referencePick is pick as it was: every candidate sorted by score.
func referencePick(cands []*sentence, k int) []*sentence {
	order := slices.Clone(cands)
	slices.SortStableFunc(order, func(a, b *sentence) int { return cmp.Compare(b.score, a.score) })
	var chosen []*sentence
	next := 0
	for {
		for len(chosen) < k && next < len(order) {
			chosen = append(chosen, order[next])
			next++
		}
		if len(chosen) == 0 {
			return nil
		}
		slices.SortFunc(chosen, func(a, b *sentence) int { return cmp.Compare(a.pos, b.pos) })
		if first := chosen[0]; first.pos == 0 || !DependsOnEarlier(first.text) {
			return chosen
		}
		chosen = chosen[1:]
	}
}

// TestPickMatchesReference: the sentences picked one by one are those of
// sorting them all, with scores tied or not, sentences that cannot open
// a summary anywhere, and more candidates than one summary considers
// (TestSummarizeMatchesReference compares the summaries made with each).
func TestPickMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	texts := []string{"The council met.", "However, it rained.", "This was late.", "It voted.", "But nobody came.", "Police said so."}
	for _, n := range []int{0, 1, 2, 3, 5, 20, MaxConsidered, MaxConsidered + 5} {
		for range 300 {
			cands := make([]*sentence, n)
			for i := range cands {
				cands[i] = &sentence{text: texts[rng.IntN(len(texts))], pos: i + rng.IntN(2), score: float64(rng.IntN(4)) / 4}
				if rng.IntN(3) == 0 {
					cands[i].score = rng.Float64()
				}
			}
			for _, k := range []int{1, 2, 3, 5} {
				got, want := pick(cands, k), referencePick(cands, k)
				if !slices.Equal(got, want) {
					t.Fatalf("%d candidates, k %d: pick chose differently from the reference", n, k)
				}
			}
		}
	}
}
