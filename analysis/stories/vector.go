package stories

import (
	"cmp"
	"math"
	"slices"
)

// weighted is a feature's weight with IDF applied.
type weighted struct {
	term uint32
	w    float64
}

// idfMemo computes IDFs under one DocFreq and keeps them: a decision
// weighs the same terms for every story it compares.
type idfMemo struct {
	df    DocFreq
	n     int
	cache map[uint32]float64
}

func newIDFMemo(df DocFreq) *idfMemo {
	return &idfMemo{df: df, n: df.Docs(), cache: map[uint32]float64{}}
}

func (m *idfMemo) idf(term uint32) float64 {
	if v, ok := m.cache[term]; ok {
		return v
	}
	v := IDF(m.df.DocFreq(term), m.n)
	m.cache[term] = v
	return v
}

// vectorOf is the profile's TF-IDF vector, unit length, sorted by term.
func vectorOf(p *Profile, idf *idfMemo) []weighted {
	out := make([]weighted, len(p.Features))
	var norm float64
	for i, f := range p.Features {
		w := float64(f.Weight) * idf.idf(f.Term)
		out[i] = weighted{f.Term, w}
		norm += w * w
	}
	scale(out, norm)
	return out
}

func scale(v []weighted, sumSquares float64) {
	if sumSquares == 0 {
		return
	}
	inv := 1 / math.Sqrt(sumSquares)
	for i := range v {
		v[i].w *= inv
	}
}

// eachShared calls fn for every term two vectors sorted by term share,
// with its two weights.
func eachShared(a, b []weighted, fn func(term uint32, wa, wb float64)) {
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].term < b[0].term:
			a = a[1:]
		case a[0].term > b[0].term:
			b = b[1:]
		default:
			fn(a[0].term, a[0].w, b[0].w)
			a, b = a[1:], b[1:]
		}
	}
}

// dot is the dot product of two vectors sorted by term.
func dot(a, b []weighted) float64 {
	var s float64
	eachShared(a, b, func(_ uint32, wa, wb float64) { s += wa * wb })
	return s
}

// topTerms returns the k terms of v with the highest weights (ties: the
// lower term), in that order.
func topTerms(v []weighted, k int) []uint32 {
	s := slices.Clone(v)
	slices.SortFunc(s, byWeightDesc)
	s = s[:min(k, len(s))]
	out := make([]uint32, len(s))
	for i, x := range s {
		out[i] = x.term
	}
	return out
}

func byWeightDesc(a, b weighted) int {
	if c := cmp.Compare(b.w, a.w); c != 0 {
		return c
	}
	return cmp.Compare(a.term, b.term)
}
