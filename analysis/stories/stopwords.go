package stories

// stopWords are left out of the terms sketch: English function words,
// reporting verbs and calendar words. Every news report has them, so they
// would make two different events look alike; what remains (names,
// places, numbers, the words of the event) is what a rewrite keeps and
// what a different event of the same kind changes. Texts in other
// languages keep all their words, which only makes their terms sketch
// less selective.
var stopWordList = []string{
	"a", "an", "the", "and", "or", "but", "nor", "of", "to", "in", "on", "at", "by", "for",
	"with", "from", "as", "into", "onto", "over", "under", "about", "after", "before", "between",
	"during", "through", "since", "until", "up", "down", "out", "off", "than", "then", "so", "if",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done",
	"has", "have", "had", "having", "will", "would", "shall", "should", "can", "could", "may",
	"might", "must", "not", "no", "yes", "it", "its", "this", "that", "these", "those", "there",
	"here", "he", "she", "they", "we", "you", "i", "his", "her", "hers", "their", "theirs", "our",
	"ours", "your", "yours", "my", "me", "him", "us", "them", "who", "whom", "whose", "which",
	"what", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most",
	"other", "some", "such", "only", "own", "same", "too", "very", "just", "also", "now", "again",
	"still", "even", "while", "because", "although", "though", "per", "via", "s", "t",
	"said", "says", "say", "told", "tells", "according", "added", "adding", "statement",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"january", "february", "march", "april", "june", "july", "august", "september",
	"october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
	"sept", "oct", "nov", "dec", "today", "yesterday", "tomorrow", "week", "year", "years",
}

var stopWords = func() map[uint64]struct{} {
	m := make(map[uint64]struct{}, len(stopWordList))
	var wh wordHasher
	for _, w := range stopWordList {
		for _, h := range wh.appendWords(nil, w) {
			m[h] = struct{}{}
		}
	}
	return m
}()

// stopHashes is stopWords as an open-addressing table of hashes, indexed
// by a hash's top bits and probed linearly, 0 for an empty slot: a word
// is looked up in a few nanoseconds where the map took several times
// that, for every word of every sentence a summary weighs.
var stopHashes = func() *[512]uint64 {
	var t [512]uint64
	for h := range stopWords {
		i := h >> 55
		for t[i] != 0 {
			i = (i + 1) % uint64(len(t))
		}
		t[i] = h
	}
	return &t
}()

// isStopHash reports whether a word hash is that of a stop word.
func isStopHash(h uint64) bool {
	if h == 0 {
		_, ok := stopWords[h]
		return ok
	}
	for i := h >> 55; ; i = (i + 1) % uint64(len(stopHashes)) {
		switch stopHashes[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// stopWordText is stopWordList as a set of case-folded words.
var stopWordText = func() map[string]struct{} {
	m := make(map[string]struct{}, len(stopWordList))
	for _, w := range stopWordList {
		m[w] = struct{}{}
	}
	return m
}()

// stopWordSlots is stopWordText as an open-addressing table keyed by the
// words' 32-bit FNV-1a hashes, the tokenizer's: a profile asks of every
// distinct word of an article whether it is a stop word, and the hash is
// already worked out. A slot holds 1 + the word's index in
// stopWordList, 0 when free; the table is at most a quarter full.
var stopWordSlots = func() []int32 {
	size := 16
	for size < 4*len(stopWordList) {
		size *= 2
	}
	slots := make([]int32, size)
	for i, w := range stopWordList {
		if isStopWordHashed(slots, w, fnv32(w)) {
			continue // listed twice
		}
		k := fnv32(w) & uint32(size-1)
		for slots[k] != 0 {
			k = (k + 1) & uint32(size-1)
		}
		slots[k] = int32(i + 1)
	}
	return slots
}()

// isStopWordHashed reports whether w, whose fnv32 is h, is in the table.
func isStopWordHashed(slots []int32, w string, h uint32) bool {
	mask := uint32(len(slots) - 1)
	for k := h & mask; slots[k] != 0; k = (k + 1) & mask {
		if stopWordList[slots[k]-1] == w {
			return true
		}
	}
	return false
}

// fnv32 is the 32-bit FNV-1a hash of s, as the tokenizer hashes a word.
func fnv32(s string) uint32 {
	h := uint32(fnvOffset32)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	return h
}
