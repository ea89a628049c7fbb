package stories

import "math"

// DocFreq gives the document frequencies of features over a workspace's
// recent archive: how many of its articles have each feature. Rare
// features weigh more (IDF), so two reports of one event meet on the
// names, places and figures of that event rather than on the words every
// report of the workspace uses.
type DocFreq interface {
	// Docs is the number of articles counted.
	Docs() int
	// DocFreq is how many of them have the feature.
	DocFreq(term uint32) int
}

// IDF is the inverse document frequency of a feature that df of n
// articles have, in the smoothed form of BM25: never negative, and
// ln 2 for every feature of an empty archive, so that the first articles
// of a workspace compare on plain counts.
func IDF(df, n int) float64 {
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// Vocabulary is an in-memory DocFreq kept incrementally: Add counts an
// article's features, Remove uncounts them when it leaves the archive the
// frequencies are kept over. It is not safe for concurrent use.
type Vocabulary struct {
	docs int
	df   map[uint32]int32
}

// NewVocabulary returns an empty vocabulary.
func NewVocabulary() *Vocabulary { return &Vocabulary{df: map[uint32]int32{}} }

// Docs implements DocFreq.
func (v *Vocabulary) Docs() int { return v.docs }

// DocFreq implements DocFreq.
func (v *Vocabulary) DocFreq(term uint32) int { return int(v.df[term]) }

// Add counts the features of one article.
func (v *Vocabulary) Add(p *Profile) {
	v.docs++
	for _, f := range p.Features {
		v.df[f.Term]++
	}
}

// Remove uncounts the features of an article counted before.
func (v *Vocabulary) Remove(p *Profile) {
	v.docs--
	for _, f := range p.Features {
		if v.df[f.Term]--; v.df[f.Term] <= 0 {
			delete(v.df, f.Term)
		}
	}
}

// Terms is how many distinct features are counted.
func (v *Vocabulary) Terms() int { return len(v.df) }
