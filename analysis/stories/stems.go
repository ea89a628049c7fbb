package stories

import (
	"strings"

	"github.com/feedpoller/feedpoller/internal/memo"
)

// Stems remembers the term of every word the profiles of a process have
// read (the hash of its stem): stemming was a third of a profile's cost,
// and articles share most of their words. The term is kept rather than
// the stem, which a profile only ever hashed. It holds at most a fixed
// number of words, starting over when full. Safe for concurrent use; a
// nil Stems remembers nothing.
type Stems struct{ terms *memo.Words[uint32] }

// NewStems remembers up to max words (a few megabytes for 50 000).
func NewStems(max int) *Stems {
	return &Stems{terms: memo.New[uint32](max, nil)}
}

// Profile is NewProfile through the remembered stems.
func (s *Stems) Profile(title, body string) Profile {
	return newProfile(title, body, s)
}

// termsOf puts in out (as long as words) the term of each of the
// case-folded words, termHash(kindWord, stemOf(word)), remembered: under
// one read lock for all of them, and one write lock for those it had to
// compute.
func (s *Stems) termsOf(words []string, out []uint32) {
	var terms *memo.Words[uint32]
	if s != nil {
		terms = s.terms
	}
	terms.Fill(words, out, wordTerm)
}

// wordTerm is the term a profile files a case-folded word under.
func wordTerm(w string) uint32 { return termHash(kindWord, stemOf(w)) }

// stemOf is the stem a profile files a word under.
func stemOf(w string) string {
	if strings.ContainsAny(w, "0123456789") {
		return w
	}
	return stemWord(w)
}
