package stories

import (
	"math/rand/v2"
	"testing"
)

// TestProfileSumsFindEachTerm: the table of a profile's entries gives
// each term the entry it was first given, in the order first met, across
// the table's growing and after a reset.
func TestProfileSumsFindEachTerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ps profileSums
	for _, n := range []int{0, 1, 40, 1000, 5000} {
		ps.reset(n / 4)
		want := map[uint32]int32{}
		var order []uint32
		for range 3 * n {
			// Terms as profiles make them, and some sharing their low bits.
			h := rng.Uint32()
			if rng.IntN(4) == 0 {
				h = rng.Uint32()&0xFF | 1<<20
			}
			if rng.IntN(3) == 0 && len(order) > 0 {
				h = order[rng.IntN(len(order))]
			}
			k := ps.indexOf(h)
			if w, ok := want[h]; ok {
				if k != w {
					t.Fatalf("term %#x: entry %d, first given %d", h, k, w)
				}
				continue
			}
			if int(k) != len(order) {
				t.Fatalf("new term %#x: entry %d, want %d", h, k, len(order))
			}
			want[h] = k
			order = append(order, h)
		}
		if len(ps.sums) != len(order) {
			t.Fatalf("%d entries for %d terms", len(ps.sums), len(order))
		}
		for k, h := range order {
			if ps.sums[k].term != h || ps.indexOf(h) != int32(k) {
				t.Fatalf("entry %d is not term %#x", k, h)
			}
		}
	}
}
