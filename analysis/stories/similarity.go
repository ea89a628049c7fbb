package stories

// Similarity is the evidence that two articles report one story, each
// part estimated from the two signatures alone.
type Similarity struct {
	// Body estimates the Jaccard similarity of the two texts' shingle
	// sets: near 1 for copies, lower for rewrites.
	Body float64
	// Containment estimates the share of the smaller text's shingles that
	// the larger has: near 1 when one is a truncated copy of the other.
	// It is 0 when the smaller text is too short to judge that way.
	Containment float64
	// Lead estimates the Jaccard similarity of the two leads.
	Lead float64
	// Terms estimates the Jaccard similarity of the two sets of content
	// words: high for rewrites that keep the facts in other words.
	Terms float64
	// Numbers is the share of the numbers of the article that has fewer
	// that the other one has too, or -1 when either has fewer than
	// MinNumbers. Copies and rewrites keep their figures; two templated
	// reports of different events (two minor releases, two automated
	// quake reports) share most words and few figures.
	Numbers float64
}

// MinContainmentShingles is the smallest text, in distinct shingles, whose
// containment counts: a two-line teaser is contained in many articles.
const MinContainmentShingles = 20

// MinTerms is the smallest set of content words whose similarity counts.
const MinTerms = 8

// MinLeadShingles is the smallest lead that counts.
const MinLeadShingles = LeadWords - ShingleWords + 1 - 8

// MinNumbers is the fewest distinct numbers both articles need for their
// numbers to be compared.
const MinNumbers = 3

// NumberAgreement is the share of numbers below which the score is scaled
// down in proportion.
const NumberAgreement = 0.5

// Score is the one number the decision compares with the threshold: the
// strongest of the kinds of text evidence, since each covers a different
// way copies differ (light edits, truncation, a shared opening, a
// rewrite), scaled down by min(1, Numbers / NumberAgreement) when the two
// articles disagree on their figures.
func (s Similarity) Score() float64 {
	sc := max(s.Body, s.Containment, s.Lead, s.Terms)
	if s.Numbers >= 0 && s.Numbers < NumberAgreement {
		sc *= s.Numbers / NumberAgreement
	}
	return sc
}

// Compare estimates the similarity of the articles behind a and b.
func Compare(a, b *Signature) Similarity {
	if a.Empty() || b.Empty() {
		return Similarity{}
	}
	var sim Similarity
	sim.Body = matchShare(a.Body[:], b.Body[:])
	small := min(a.BodyShingles, b.BodyShingles)
	if small >= MinContainmentShingles {
		// |A∩B| = J/(1+J)·(|A|+|B|) for Jaccard J.
		inter := sim.Body / (1 + sim.Body) * float64(a.BodyShingles+b.BodyShingles)
		sim.Containment = min(1, inter/float64(small))
	}
	if min(a.LeadShingles, b.LeadShingles) >= MinLeadShingles {
		sim.Lead = matchShare(a.Lead[:], b.Lead[:])
	}
	if min(a.TermCount, b.TermCount) >= MinTerms {
		sim.Terms = matchShare(a.Terms[:], b.Terms[:])
	}
	sim.Numbers = numberContainment(a, b)
	return sim
}

// numberContainment estimates |A∩B| / min(|A|, |B|) of the two number
// sets from their bottom-k sketches: exact while both have at most
// NumberHashes numbers, else over the hash range both sketches cover.
func numberContainment(a, b *Signature) float64 {
	if a.NumberCount < MinNumbers || b.NumberCount < MinNumbers {
		return -1
	}
	na, nb := min(int(a.NumberCount), NumberHashes), min(int(b.NumberCount), NumberHashes)
	x, y := a.Numbers[:na], b.Numbers[:nb]
	limit := uint32(1<<32 - 1)
	if int(a.NumberCount) > NumberHashes {
		limit = min(limit, x[na-1])
	}
	if int(b.NumberCount) > NumberHashes {
		limit = min(limit, y[nb-1])
	}
	inA, inB, both := 0, 0, 0
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || i < len(x) && x[i] < y[j]:
			if x[i] <= limit {
				inA++
			}
			i++
		case i == len(x) || y[j] < x[i]:
			if y[j] <= limit {
				inB++
			}
			j++
		default:
			if x[i] <= limit {
				inA++
				inB++
				both++
			}
			i++
			j++
		}
	}
	if min(inA, inB) == 0 {
		return 0
	}
	return float64(both) / float64(min(inA, inB))
}

// matchShare is the share of MinHash slots that agree: an unbiased
// estimate of the Jaccard similarity of the two sets.
func matchShare(a, b []uint32) float64 {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
