package stories

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopTermsIsTheHeadOfASort: the terms a lookup asks for are the
// first k of all of a vector's terms sorted by weight, ties to the lower
// term, in that order, whatever k and however many weights tie.
func TestTopTermsIsTheHeadOfASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 12, 13, 96, 200} {
		for _, k := range []int{0, 1, 6, 8, 12, 96, 300} {
			for range 30 {
				v := make([]weighted, 0, n)
				seen := map[uint32]bool{}
				for len(v) < n {
					term := uint32(rng.IntN(1 << 20))
					if seen[term] {
						continue
					}
					seen[term] = true
					v = append(v, weighted{term, float64(rng.IntN(5)) / 7})
				}
				slices.SortFunc(v, func(a, b weighted) int { return int(a.term) - int(b.term) })
				orig := slices.Clone(v)
				all := slices.Clone(v)
				slices.SortFunc(all, byWeightDesc)
				want := make([]uint32, 0, k)
				for _, x := range all[:min(k, len(all))] {
					want = append(want, x.term)
				}
				if got := topTerms(v, k); !slices.Equal(got, want) {
					t.Fatalf("n=%d k=%d: %v, want %v", n, k, got, want)
				}
				if !slices.Equal(v, orig) {
					t.Fatalf("n=%d k=%d: the vector changed", n, k)
				}
			}
		}
	}
}
