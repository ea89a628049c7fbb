package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCutsCountLikeCount: the prefix up to every cut has exactly the
// tokens the cut says, the cuts stop at the budget, and a text within the
// budget is cut at its end.
func TestCutsCountLikeCount(t *testing.T) {
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		c, err := For(enc)
		if err != nil {
			t.Fatal(err)
		}
		cutsCountLikeCount(t, c)
	}
}

func cutsCountLikeCount(t *testing.T, c *Counter) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"the", "release", " ", "\n", "\n\n", "  ", "node.js", "café", "日本語", "1234567", "!!", "'s", "\t", "https://x.example/a?b=c"}
	texts := []string{
		"# Title\n\nSome prose, with punctuation; and numbers 12345.\n\n- a list\n- of items\n",
		strings.Repeat("a", 200<<10) + " tail",
		strings.Repeat(" ", 70<<10) + "x",
	}
	for range 100 {
		var b strings.Builder
		for range rng.IntN(400) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		for _, budget := range []int{1, 7, 50, 1000, 100000} {
			cuts := c.Cuts(s, budget)
			prev := 0
			for _, cut := range cuts {
				if cut.End <= prev || cut.Tokens > budget {
					t.Fatalf("cuts not increasing or over budget %d: %+v", budget, cut)
				}
				prev = cut.End
			}
			for k, cut := range cuts {
				if k != len(cuts)-1 && (len(s) > 100000 || k%5 != 0) {
					continue
				}
				if got := c.Count(s[:cut.End]); got != cut.Tokens {
					t.Errorf("%s: Count(s[:%d]) = %d, the cut says %d (%.60q)", c.Encoding(), cut.End, got, cut.Tokens, s)
				}
			}
			if total := c.Count(s); total <= budget && (len(s) > 0 && (len(cuts) == 0 || cuts[len(cuts)-1].End != len(s))) {
				t.Errorf("a text of %d tokens within the budget %d is not cut at its end", total, budget)
			}
		}
	}
}

// TestCutsWorkIsThePrefix: a megabyte of one letter, which costs seconds
// to count whole, is not merged at all when its length alone exceeds the
// budget, and only a slice of it is when the budget is larger.
func TestCutsWorkIsThePrefix(t *testing.T) {
	c, _ := For(CL100kBase)
	s := strings.Repeat("a", 1<<20)
	if cuts := c.Cuts(s, 2000); len(cuts) != 0 {
		t.Errorf("cuts %v within 2000 tokens of a megabyte of one letter", cuts)
	}
	cuts := c.Cuts(s, 20000)
	if len(cuts) != 2 || cuts[1].End != 2*maxMergePiece {
		t.Errorf("cuts %v, want the two 64 KB slices that fit 20000 tokens", cuts)
	}
}
