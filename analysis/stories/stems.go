package stories

import (
	"strings"
	"sync"
)

// Stems remembers the term of every word the profiles of a process have
// read (the hash of its stem): stemming was a third of a profile's cost,
// and articles share most of their words. The term is kept rather than
// the stem, which a profile only ever hashed. It holds at most a fixed
// number of words, starting over when full. Safe for concurrent use; a
// nil Stems remembers nothing.
type Stems struct {
	mu    sync.RWMutex
	terms map[string]uint32
	max   int
}

// NewStems remembers up to max words (a few megabytes for 50 000).
func NewStems(max int) *Stems {
	return &Stems{terms: make(map[string]uint32, min(max, 4096)), max: max}
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
	if s == nil {
		for i, w := range words {
			out[i] = wordTerm(w)
		}
		return
	}
	var missed []int
	s.mu.RLock()
	for i, w := range words {
		h, ok := s.terms[w]
		if !ok {
			missed = append(missed, i)
			continue
		}
		out[i] = h
	}
	s.mu.RUnlock()
	if len(missed) == 0 {
		return
	}
	for _, i := range missed {
		out[i] = wordTerm(words[i])
	}
	// Copies are kept: the words are cut from the text of a line, which
	// the memory would then hold.
	s.mu.Lock()
	for _, i := range missed {
		if len(s.terms) >= s.max {
			s.terms = make(map[string]uint32, min(s.max, 4096))
		}
		s.terms[strings.Clone(words[i])] = out[i]
	}
	s.mu.Unlock()
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
