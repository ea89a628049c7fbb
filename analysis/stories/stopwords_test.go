package stories

import (
	"strings"
	"testing"
)

// TestStopWordTableIsTheSet: the hashed table of stop words answers as
// the set does, for every stop word and every word of the reference
// texts, with the hash the tokenizer gives each word.
func TestStopWordTableIsTheSet(t *testing.T) {
	tz := newTokenizer(0)
	for _, text := range referenceTexts(t) {
		for line := range strings.Lines(text) {
			tz.appendTokens(nil, line)
		}
	}
	for _, w := range stopWordList {
		tz.cur = append(tz.cur[:0], w...)
		tz.intern()
	}
	tz.addWords()
	stops := 0
	for id, w := range tz.words {
		if h := fnv32(w); h != tz.hashes[id] {
			t.Fatalf("fnv32(%q) = %d, the tokenizer's hash %d", w, h, tz.hashes[id])
		}
		got, want := isStopWordHashed(stopWordSlots, w, tz.hashes[id]), isStopWord(w)
		if got != want {
			t.Errorf("%q: stop word by the table %v, by the set %v", w, got, want)
		}
		if got {
			stops++
		}
	}
	if stops != len(stopWordText) || len(tz.words) < 1000 {
		t.Errorf("%d stop words found of %d, among %d words", stops, len(stopWordText), len(tz.words))
	}
}
