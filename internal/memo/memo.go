// Package memo remembers what a pure function of a word gave, for every
// caller of a process: stems, lexemes and story terms are costly to
// compute and articles share most of their words.
package memo

import (
	"strings"
	"sync"
)

// Words remembers results (of type V) of word functions for up to a
// fixed number of words, starting over when full (a few megabytes for
// 50 000). Safe for concurrent use; a nil Words remembers nothing.
type Words[V any] struct {
	mu    sync.RWMutex
	words map[string]V
	max   int
	// own returns a result the memory may keep when it could share a
	// word's bytes (a string result that is its word); nil: results
	// are kept as they are.
	own func(V) V
}

// NewWords remembers up to max words whose results are strings.
func NewWords(max int) *Words[string] { return New(max, strings.Clone) }

// New remembers up to max words; own is as Words says.
func New[V any](max int, own func(V) V) *Words[V] {
	return &Words[V]{words: make(map[string]V, min(max, 4096)), max: max, own: own}
}

// Of returns f(word), remembered. One Words serves one f, which must
// depend on its word alone.
func (w *Words[V]) Of(word string, f func(string) V) V {
	if w == nil {
		return f(word)
	}
	w.mu.RLock()
	v, ok := w.words[word]
	w.mu.RUnlock()
	if ok {
		return v
	}
	v = f(word)
	w.mu.Lock()
	w.keep(word, v)
	w.mu.Unlock()
	return v
}

// OfBytes is Of for a word held in a buffer the caller reuses: a word
// remembered is found without copying it to a string.
func (w *Words[V]) OfBytes(word []byte, f func(string) V) V {
	if w == nil {
		return f(string(word))
	}
	w.mu.RLock()
	v, ok := w.words[string(word)]
	w.mu.RUnlock()
	if ok {
		return v
	}
	s := string(word)
	v = f(s)
	w.mu.Lock()
	w.keep(s, v)
	w.mu.Unlock()
	return v
}

// keep remembers v for word, starting over when full; the caller holds
// the write lock.
func (w *Words[V]) keep(word string, v V) {
	if len(w.words) >= w.max {
		w.words = make(map[string]V, min(w.max, 4096))
	}
	w.words[word] = v
}

// OfMany returns f(word) for each of words, in order, remembered as Fill
// does.
func (w *Words[V]) OfMany(words []string, f func(string) V) []V {
	out := make([]V, len(words))
	w.Fill(words, out, f)
	return out
}

// Fill puts f(words[i]) in out[i] (out as long as words), remembered as
// Of does: under one read lock for all of them, and one write lock for
// those it had to compute, where Of takes a lock per word.
func (w *Words[V]) Fill(words []string, out []V, f func(string) V) {
	if w == nil {
		for i, word := range words {
			out[i] = f(word)
		}
		return
	}
	var missed []int
	w.mu.RLock()
	for i, word := range words {
		v, ok := w.words[word]
		if !ok {
			missed = append(missed, i)
			continue
		}
		out[i] = v
	}
	w.mu.RUnlock()
	if len(missed) == 0 {
		return
	}
	for _, i := range missed {
		out[i] = f(words[i])
	}
	// Copies are kept: a caller's words (and a result that is its word)
	// may be cut from a larger text, which the memory would then hold.
	w.mu.Lock()
	for _, i := range missed {
		v := out[i]
		if w.own != nil {
			v = w.own(v)
		}
		w.keep(strings.Clone(words[i]), v)
	}
	w.mu.Unlock()
}
