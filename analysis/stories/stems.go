package stories

import (
	"strings"
	"sync"
)

// Stems remembers the stem of every word the profiles of a process have
// read: stemming was a third of a profile's cost, and articles share most
// of their words. It holds at most a fixed number of words, starting over
// when full. Safe for concurrent use; a nil Stems remembers nothing
// beyond the article at hand.
type Stems struct {
	mu    sync.RWMutex
	words map[string]string // case-folded word → its stem
	max   int
}

// NewStems remembers up to max words (a few megabytes for 50 000).
func NewStems(max int) *Stems {
	return &Stems{words: make(map[string]string, min(max, 4096)), max: max}
}

// Profile is NewProfile through the remembered stems.
func (s *Stems) Profile(title, body string) Profile {
	return newProfile(title, body, s)
}

// of returns the stem of a case-folded word: words holding a digit are
// their own stem.
func (s *Stems) of(w string) string {
	if s == nil {
		return stemOf(w)
	}
	s.mu.RLock()
	st, ok := s.words[w]
	s.mu.RUnlock()
	if ok {
		return st
	}
	st = stemOf(w)
	s.mu.Lock()
	if len(s.words) >= s.max {
		s.words = make(map[string]string, min(s.max, 4096))
	}
	s.words[w] = st
	s.mu.Unlock()
	return st
}

// stemOf is the stem a profile files a word under.
func stemOf(w string) string {
	if strings.ContainsAny(w, "0123456789") {
		return w
	}
	return stemWord(w)
}
