package main

import (
	"math"
	"strings"
	"unicode"
)

// baseline is the plain TF-IDF cosine grouping the benchmark compares
// with: every article is a bag of its lower-cased words (title and body,
// no stop list, no stemming), weighted 1 + ln tf by the smoothed IDF
// ln((1+N)/(1+df)) + 1 of the articles seen before its poll; it joins the
// story of its most similar earlier article within the story window when
// the cosine reaches the threshold, else starts a story. Online, in the
// same polls as grouping.
type baseline struct {
	df map[string]int
	n  int
}

func newBaseline() *baseline {
	return &baseline{df: map[string]int{}}
}

func baseWords(s string) map[string]float64 {
	tf := map[string]float64{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		tf[w]++
	}
	for w, c := range tf {
		tf[w] = 1 + math.Log(c)
	}
	return tf
}

func (b *baseline) vector(tf map[string]float64) map[string]float64 {
	v := make(map[string]float64, len(tf))
	var ss float64
	for w, c := range tf {
		x := c * (math.Log(float64(1+b.n)/float64(1+b.df[w])) + 1)
		v[w] = x
		ss += x * x
	}
	for w := range v {
		v[w] /= math.Sqrt(ss)
	}
	return v
}

// nearest returns, for every article of the stream, its most similar
// article delivered before it (by an earlier poll, or earlier in its
// poll) within the window, and that similarity; -1 when there is none.
// The IDF is that of the articles before the poll. The decision for any
// threshold follows from these (assign).
func (b *baseline) nearest(st stream, windowSeconds int64) (best []int, sim []float64) {
	best = make([]int, len(st.Articles))
	sim = make([]float64, len(st.Articles))
	type seenDoc struct {
		i  int
		tf map[string]float64
		at int64
	}
	var seen []seenDoc
	for _, p := range st.Polls {
		vecs := make([]map[string]float64, 0, len(seen)+len(p.Articles))
		var batch []seenDoc
		for _, i := range p.Articles {
			a := st.Articles[i]
			batch = append(batch, seenDoc{i, baseWords(a.Title + "\n" + a.Body), a.ReportedAt.Unix()})
		}
		all := append(seen, batch...)
		for _, d := range all {
			vecs = append(vecs, b.vector(d.tf))
		}
		for k := len(seen); k < len(all); k++ {
			d := all[k]
			best[d.i], sim[d.i] = -1, 0
			for o := range k {
				if abs(all[o].at-d.at) > windowSeconds {
					continue
				}
				var s float64
				for w, x := range vecs[k] {
					s += x * vecs[o][w]
				}
				if s > sim[d.i] {
					best[d.i], sim[d.i] = all[o].i, s
				}
			}
		}
		for _, d := range batch {
			b.n++
			for w := range d.tf {
				b.df[w]++
			}
		}
		seen = all
	}
	return best, sim
}

// assign is the baseline's stories at a threshold: in delivery order, an
// article joins its nearest earlier article's story when their
// similarity reaches the threshold.
func assign(st stream, best []int, sim []float64, threshold float64) []int64 {
	story := make([]int64, len(st.Articles))
	var next int64
	for _, p := range st.Polls {
		for _, i := range p.Articles {
			if best[i] >= 0 && sim[i] >= threshold {
				story[i] = story[best[i]]
				continue
			}
			next++
			story[i] = next
		}
	}
	return story
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
