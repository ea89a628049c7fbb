package stories

import (
	"math"
	"slices"
	"testing"
)

// referenceVector is vectorFor as it was: the kept IDFs, then the
// arrival's current ones over them (eachKnown), then the weights, in
// three passes.
func referenceVector(c *Centroid, a *weighing) []weighted {
	out := make([]weighted, len(c.Features))
	for i, f := range c.Features {
		out[i] = weighted{f.Term, float64(c.IDFs[i])}
	}
	a.eachKnown(c.Features, func(i, j int) { out[i].w = a.idf[j] })
	var ss float64
	for i, f := range c.Features {
		out[i].w *= float64(f.Weight)
		ss += out[i].w * out[i].w
	}
	scale(out, ss)
	return out
}

// TestVectorForMatchesReference: a story's vector as compared with an
// arrival is the reference's to the bit, for centroids of one to many
// story set articles (200 features kept) against every article.
func TestVectorForMatchesReference(t *testing.T) {
	vocab := NewVocabulary()
	var profiles []*Profile
	for _, poll := range storySetPolls(t, 1) {
		profiles = append(profiles, &poll[0].Profile)
		vocab.Add(&poll[0].Profile)
	}
	idf := newIDFMemo(vocab)
	var cents []Centroid
	c := Centroid{}
	for i, p := range profiles {
		c = c.add(weigh(p, idf))
		if i%7 == 0 || i < 3 {
			cents = append(cents, c)
		}
	}
	if n := len(cents[len(cents)-1].Features); n != CentroidFeatures {
		t.Fatalf("the largest centroid has %d features, want %d", n, CentroidFeatures)
	}
	compared := 0
	for _, c := range cents {
		for _, p := range profiles {
			w := weigh(p, idf)
			got, want := c.vectorFor(w), referenceVector(&c, w)
			if !slices.EqualFunc(got, want, func(x, y weighted) bool {
				return x.term == y.term && math.Float64bits(x.w) == math.Float64bits(y.w)
			}) {
				t.Fatalf("centroid of %d articles: vector differs from the reference", c.Articles)
			}
			compared++
		}
	}
	t.Logf("%d vectors compared", compared)
}
