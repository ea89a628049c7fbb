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

// pollDocFreq is a DocFreq with the other articles of a poll counted: a
// poll's articles are part of the archive each of them is weighed
// against, so words that several reports of one kind of event arriving in
// one poll share weigh as little as they will once stored. An article
// does not count itself: a feature only it has keeps the weight it has in
// a poll of one article.
type pollDocFreq struct {
	base  DocFreq
	docs  int
	extra map[uint32]int
}

// withPoll returns base with the other articles of the poll counted for
// each of arrivals (see pollDocFreq).
func withPoll(base DocFreq, arrivals []Arrival) DocFreq {
	if len(arrivals) < 2 {
		return base
	}
	in := map[uint32]int{}
	for i := range arrivals {
		for _, f := range arrivals[i].Profile.Features {
			in[f.Term]++
		}
	}
	extra := make(map[uint32]int, len(in))
	for t, n := range in {
		if n > 1 {
			extra[t] = n - 1
		}
	}
	return &pollDocFreq{base: base, docs: base.Docs() + len(arrivals) - 1, extra: extra}
}

func (d *pollDocFreq) Docs() int { return d.docs }

func (d *pollDocFreq) DocFreq(term uint32) int { return d.base.DocFreq(term) + d.extra[term] }
