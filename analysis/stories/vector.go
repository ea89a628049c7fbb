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

// idfMemo computes IDFs under one DocFreq, with the number of documents
// read once per decision. It keeps no cache: a frequency lookup and a
// logarithm cost less than filling a map per decision would (measured
// with BenchmarkGroupPlace).
type idfMemo struct {
	df DocFreq
	n  int
}

func newIDFMemo(df DocFreq) *idfMemo {
	return &idfMemo{df: df, n: df.Docs()}
}

func (m *idfMemo) idf(term uint32) float64 {
	return IDF(m.df.DocFreq(term), m.n)
}

// weighing is an arrival as a decision weighs it: its profile, the
// current IDF of each of its features (beside p.Features) and its TF-IDF
// vector, unit length, sorted by term. Its features are the only ones
// whose frequencies a decision reads.
type weighing struct {
	p   *Profile
	idf []float64
	vec []weighted
	// kept is the IDF of each feature once the arrival is counted, what
	// a centroid it joins keeps (as a float32) and what its stored
	// profile keeps (quantised from the float64).
	kept []float64
}

// weigh returns the profile as weighed under idf.
func weigh(p *Profile, idf *idfMemo) *weighing {
	a := &weighing{p: p, idf: make([]float64, len(p.Features)), vec: make([]weighted, len(p.Features)),
		kept: make([]float64, len(p.Features))}
	var norm float64
	for i, f := range p.Features {
		df := idf.df.DocFreq(f.Term)
		a.idf[i] = IDF(df, idf.n)
		a.kept[i] = IDF(df+1, idf.n+1)
		w := float64(f.Weight) * a.idf[i]
		a.vec[i] = weighted{f.Term, w}
		norm += w * w
	}
	scale(a.vec, norm)
	return a
}

// eachKnown calls fn with the position in fs (sorted by term) of every
// feature the arrival has, and that feature's position in its profile.
func (a *weighing) eachKnown(fs []Feature, fn func(i, j int)) {
	own := a.p.Features
	j := 0
	for i, f := range fs {
		for j < len(own) && own[j].Term < f.Term {
			j++
		}
		if j == len(own) {
			return
		}
		if own[j].Term == f.Term {
			fn(i, j)
		}
	}
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
	return topTermsOf(slices.Clone(v), k)
}

// topTermsOf is topTerms reordering v, a vector the caller does not keep.
func topTermsOf(s []weighted, k int) []uint32 {
	// A profile has some 96 terms and a lookup asks for 12: the k first
	// are selected, and only they are sorted. byWeightDesc is a total
	// order (a vector's terms are distinct), so they are the ones a sort
	// of all would put first.
	if k < len(s) {
		selectFirst(s, k, byWeightDesc)
		s = s[:max(k, 0)]
	}
	slices.SortFunc(s, byWeightDesc)
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
