package summary

import (
	"math"
	"slices"

	"github.com/feedpoller/feedpoller/analysis/stories"
)

// newSentence is a sentence made on its own, outside a summary's pooled
// scratch: what the reference tests compare the scratch's sentences with.
func newSentence(text string, pos int) *sentence {
	ws := stories.ContentWords(text)
	slices.Sort(ws)
	s := &sentence{text: text, pos: pos}
	s.setWords(ws)
	return s
}

// setWords gives the sentence its word vector: each distinct hash of the
// sorted ws once, with how often it occurs, and the vector's norm. The
// distinct hashes are moved to the front of ws, which the sentence keeps.
func (s *sentence) setWords(ws []uint64) {
	k, freq, squares := runs(ws, make([]float64, 0, len(ws)))
	s.words, s.freq, s.norm = ws[:k:k], freq, math.Sqrt(squares)
}
