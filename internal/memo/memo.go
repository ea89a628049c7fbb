// Package memo remembers what a pure function of a word gave, for every
// caller of a process: stems and lexemes are costly to compute and
// articles share most of their words.
package memo

import "sync"

// Words remembers results of word functions for up to a fixed number of
// words, starting over when full (a few megabytes for 50 000). Safe for
// concurrent use; a nil Words remembers nothing.
type Words struct {
	mu    sync.RWMutex
	words map[string]string
	max   int
}

// NewWords remembers up to max words.
func NewWords(max int) *Words {
	return &Words{words: make(map[string]string, min(max, 4096)), max: max}
}

// Of returns f(word), remembered. One Words serves one f, which must
// depend on its word alone.
func (w *Words) Of(word string, f func(string) string) string {
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
	if len(w.words) >= w.max {
		w.words = make(map[string]string, min(w.max, 4096))
	}
	w.words[word] = v
	w.mu.Unlock()
	return v
}
