package stories

import (
	"strings"

	"github.com/feedpoller/feedpoller/internal/memo"
)

// Stems remembers the stem of every word the profiles of a process have
// read: stemming was a third of a profile's cost, and articles share most
// of their words. It holds at most a fixed number of words, starting over
// when full. Safe for concurrent use; a nil Stems remembers nothing.
type Stems struct{ words *memo.Words }

// NewStems remembers up to max words (a few megabytes for 50 000).
func NewStems(max int) *Stems { return &Stems{words: memo.NewWords(max)} }

// Profile is NewProfile through the remembered stems.
func (s *Stems) Profile(title, body string) Profile {
	return newProfile(title, body, s)
}

// ofAll returns the stem of each of the case-folded words (a word holding
// a digit is its own stem), remembered.
func (s *Stems) ofAll(words []string) []string {
	if s == nil {
		return (*memo.Words)(nil).OfMany(words, stemOf)
	}
	return s.words.OfMany(words, stemOf)
}

// stemOf is the stem a profile files a word under.
func stemOf(w string) string {
	if strings.ContainsAny(w, "0123456789") {
		return w
	}
	return stemWord(w)
}
