package stories

import (
	"cmp"
	"math"
	"slices"
)

// CentroidFeatures bounds a story's centroid: the features with the
// highest weights (IDF applied) are kept when an article joins. A story
// of any size is compared and stored at this size, so neither the
// decision nor the save costs more as a story grows.
const CentroidFeatures = 200

// Centroid is what grouping keeps of a story: the sum of its articles'
// profiles, each scaled to unit length, and how many articles it has.
// A new article is compared with the story as a whole through it, not
// with one member, so a story's vocabulary is that of all its reports.
//
// Each feature keeps the IDF it was last weighed with. A decision knows
// the current document frequencies of the arriving article's features
// only: the features the article shares with the centroid are weighed
// with those, the others with the IDF kept, so that comparing with a
// story never needs the frequencies of the story's other 200 terms.
// Every write of the centroid (an article added, a merge) refreshes the
// IDFs of that article's features.
type Centroid struct {
	// Features holds the summed weights, sorted by term.
	Features []Feature
	// IDFs holds, beside each feature, the IDF it was last weighed with;
	// nil for a centroid stored before they were kept (Group weighs such
	// a centroid with the current frequencies of all its features, which
	// its reader must then supply).
	IDFs []float32
	// Articles is the number of articles added.
	Articles int
}

// unitFeatures returns the profile's weights scaled to unit length.
func unitFeatures(p *Profile) []Feature {
	var ss float64
	for _, f := range p.Features {
		ss += float64(f.Weight) * float64(f.Weight)
	}
	out := slices.Clone(p.Features)
	if ss == 0 {
		return out
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range out {
		out[i].Weight *= inv
	}
	return out
}

// withIDFs returns the centroid with an IDF beside every feature: those
// kept, or for a centroid stored without them, the current ones.
func (c Centroid) withIDFs(idf *idfMemo) Centroid {
	if len(c.IDFs) == len(c.Features) {
		return c
	}
	c.IDFs = make([]float32, len(c.Features))
	for i, f := range c.Features {
		c.IDFs[i] = float32(idf.idf(f.Term))
	}
	return c
}

// add returns the centroid with the arrival's profile added, kept to the
// CentroidFeatures heaviest features.
func (c Centroid) add(a *weighing) Centroid {
	idfs := make([]float32, len(a.kept))
	for i, k := range a.kept {
		idfs[i] = float32(k)
	}
	return c.merge(Centroid{Features: unitFeatures(a.p), IDFs: idfs, Articles: 1}, a)
}

// merge returns the sum of two centroids (two stories that became one
// through the arrival a), the IDFs of a's features refreshed, kept to the
// CentroidFeatures heaviest features. A feature both have and a does not
// keeps c's IDF.
func (c Centroid) merge(o Centroid, a *weighing) Centroid {
	fa, fb := c.Features, o.Features
	ia, ib := c.IDFs, o.IDFs
	sum := make([]Feature, 0, len(fa)+len(fb))
	idfs := make([]float32, 0, len(fa)+len(fb))
	for len(fa) > 0 || len(fb) > 0 {
		switch {
		case len(fb) == 0 || len(fa) > 0 && fa[0].Term < fb[0].Term:
			sum, idfs = append(sum, fa[0]), append(idfs, ia[0])
			fa, ia = fa[1:], ia[1:]
		case len(fa) == 0 || fb[0].Term < fa[0].Term:
			sum, idfs = append(sum, fb[0]), append(idfs, ib[0])
			fb, ib = fb[1:], ib[1:]
		default:
			sum = append(sum, Feature{Term: fa[0].Term, Weight: fa[0].Weight + fb[0].Weight, Flags: fa[0].Flags | fb[0].Flags})
			idfs = append(idfs, ia[0])
			fa, fb, ia, ib = fa[1:], fb[1:], ia[1:], ib[1:]
		}
	}
	a.eachKnown(sum, func(i, j int) { idfs[i] = float32(a.kept[j]) })
	if len(sum) > CentroidFeatures {
		ws := make([]weighted, len(sum))
		for i, f := range sum {
			ws[i] = weighted{i2u(i), float64(f.Weight) * float64(idfs[i])}
		}
		slices.SortFunc(ws, byWeightDesc)
		ws = ws[:CentroidFeatures]
		slices.SortFunc(ws, func(x, y weighted) int { return cmp.Compare(x.term, y.term) })
		keep := make([]Feature, CentroidFeatures)
		keepIDFs := make([]float32, CentroidFeatures)
		for i, w := range ws {
			keep[i], keepIDFs[i] = sum[w.term], idfs[w.term]
		}
		sum, idfs = keep, keepIDFs
	}
	return Centroid{Features: sum, IDFs: idfs, Articles: c.Articles + o.Articles}
}

// i2u carries a slice position in a weighted's term field.
func i2u(i int) uint32 { return uint32(i) }

// vectorFor is the centroid's TF-IDF vector, unit length, as compared
// with the arrival a: the features a has weighed with their current IDF,
// the others with the IDF kept.
func (c *Centroid) vectorFor(a *weighing) []weighted { return c.vectorInto(nil, a) }

// vectorInto is vectorFor written over buf's array (grown when short),
// for a caller that compares many stories and keeps few vectors.
func (c *Centroid) vectorInto(buf []weighted, a *weighing) []weighted {
	out := slices.Grow(buf[:0], len(c.Features))[:len(c.Features)]
	// One pass, the arrival's features merged in (as eachKnown would):
	// a story is compared at 200 features, the arrival at 96.
	own := a.p.Features
	j := 0
	var ss float64
	for i, f := range c.Features {
		idf := float64(c.IDFs[i])
		for j < len(own) && own[j].Term < f.Term {
			j++
		}
		if j < len(own) && own[j].Term == f.Term {
			idf = a.idf[j]
		}
		w := idf * float64(f.Weight)
		out[i] = weighted{f.Term, w}
		ss += w * w
	}
	scale(out, ss)
	return out
}
