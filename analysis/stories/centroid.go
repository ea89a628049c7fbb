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
type Centroid struct {
	// Features holds the summed weights, sorted by term.
	Features []Feature
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

// add returns the centroid with the article's profile added, kept to the
// CentroidFeatures heaviest features under df.
func (c Centroid) add(p *Profile, idf *idfMemo) Centroid {
	return c.merge(Centroid{Features: unitFeatures(p), Articles: 1}, idf)
}

// merge returns the sum of two centroids (two stories that became one),
// kept to the CentroidFeatures heaviest features under df.
func (c Centroid) merge(o Centroid, idf *idfMemo) Centroid {
	a, b := c.Features, o.Features
	sum := make([]Feature, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].Term < b[0].Term:
			sum = append(sum, a[0])
			a = a[1:]
		case len(a) == 0 || b[0].Term < a[0].Term:
			sum = append(sum, b[0])
			b = b[1:]
		default:
			sum = append(sum, Feature{Term: a[0].Term, Weight: a[0].Weight + b[0].Weight, Flags: a[0].Flags | b[0].Flags})
			a, b = a[1:], b[1:]
		}
	}
	if len(sum) > CentroidFeatures {
		ws := make([]weighted, len(sum))
		for i, f := range sum {
			ws[i] = weighted{i2u(i), float64(f.Weight) * idf.idf(f.Term)}
		}
		slices.SortFunc(ws, byWeightDesc)
		keep := make([]Feature, CentroidFeatures)
		for i := range keep {
			keep[i] = sum[ws[i].term]
		}
		slices.SortFunc(keep, func(x, y Feature) int { return cmp.Compare(x.Term, y.Term) })
		sum = keep
	}
	return Centroid{Features: sum, Articles: c.Articles + o.Articles}
}

// i2u carries a slice position in a weighted's term field.
func i2u(i int) uint32 { return uint32(i) }

// vector is the centroid's TF-IDF vector, unit length.
func (c *Centroid) vector(idf *idfMemo) []weighted {
	return vectorOf(&Profile{Features: c.Features}, idf)
}
