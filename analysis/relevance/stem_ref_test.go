package relevance

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testpages"
)

// The Porter2 steps as they were before their suffixes were grouped by
// last letter: every suffix of a step tried in turn. The grouped steps
// must stem every word as these do.

func referenceStem(w []byte) []byte {
	if len(w) > 0 && w[0] == '\'' {
		w = w[1:]
	}
	if len(w) <= 2 {
		return w
	}
	if s, ok := exceptionalForm(w); ok {
		return append(w[:0], s...)
	}
	// y at the start or after a vowel is a consonant: mark it as Y.
	if w[0] == 'y' {
		w[0] = 'Y'
	}
	for i := 1; i < len(w); i++ {
		if w[i] == 'y' && isVowel(w[i-1]) {
			w[i] = 'Y'
		}
	}
	r1, r2 := regions(w)
	w = step0(w)
	w = step1a(w)
	if isInvariantAfter1a(w) {
		return lowerY(w)
	}
	w = referenceStep1b(w, r1)
	w = step1c(w)
	w = referenceStep2(w, r1)
	w = referenceStep3(w, r1, r2)
	w = referenceStep4(w, r2)
	w = step5(w, r1, r2)
	return lowerY(w)
}

func referenceStep1b(w []byte, r1 int) []byte {
	for _, s := range [...]string{"eedly", "ingly", "edly", "eed", "ing", "ed"} {
		if !hasSuffix(w, s) {
			continue
		}
		start := len(w) - len(s)
		if s == "eedly" || s == "eed" {
			if start >= r1 {
				return replaceSuffix(w, len(s), "ee")
			}
			return w
		}
		if !hasVowel(w[:start]) {
			return w
		}
		w = w[:start]
		switch {
		case hasSuffix(w, "at"), hasSuffix(w, "bl"), hasSuffix(w, "iz"):
			return append(w, 'e')
		case isDouble(w):
			return w[:len(w)-1]
		case isShortWord(w, r1):
			return append(w, 'e')
		}
		return w
	}
	return w
}

func referenceStep2(w []byte, r1 int) []byte {
	// Every suffix of this step ends in one of these letters; most words
	// leave here.
	if n := len(w); n == 0 || !endsInAny(w[n-1], "nlsimr") {
		return w
	}
	for _, r := range step2Rules {
		if !hasSuffix(w, r.suffix) {
			continue
		}
		start := len(w) - len(r.suffix)
		if start < r1 {
			return w
		}
		switch r.suffix {
		case "ogi":
			if start == 0 || w[start-1] != 'l' {
				return w
			}
		case "li":
			if start == 0 || !isLiEnding(w[start-1]) {
				return w
			}
		}
		return replaceSuffix(w, len(r.suffix), r.repl)
	}
	return w
}

func referenceStep3(w []byte, r1, r2 int) []byte {
	// Every suffix of this step ends in one of these letters; most words
	// leave here.
	if n := len(w); n == 0 || !endsInAny(w[n-1], "leis") {
		return w
	}
	for _, r := range step3Rules {
		if !hasSuffix(w, r.suffix) {
			continue
		}
		start := len(w) - len(r.suffix)
		if start < r1 || r.suffix == "ative" && start < r2 {
			return w
		}
		return replaceSuffix(w, len(r.suffix), r.repl)
	}
	return w
}

func referenceStep4(w []byte, r2 int) []byte {
	// Every suffix of this step ends in one of these letters; most words
	// leave here.
	if n := len(w); n == 0 || !endsInAny(w[n-1], "temisnlrc") {
		return w
	}
	for _, s := range step4Suffixes {
		if !hasSuffix(w, s) {
			continue
		}
		start := len(w) - len(s)
		if start < r2 {
			return w
		}
		if s == "ion" && (start == 0 || w[start-1] != 's' && w[start-1] != 't') {
			return w
		}
		return w[:start]
	}
	return w
}

// TestStemMatchesReference: every word the prefix rule is checked on
// (all of up to four letters, the forms Porter2 steers by) and every
// word of the extraction test pages stems as the reference stems it.
func TestStemMatchesReference(t *testing.T) {
	words := stemWords()
	for _, text := range testpages.Read(t, "../..", testpages.Converted) {
		var tk tokenizer
		tk.each(strings.ToLower(text), func(w []byte) {
			if isLowerASCIIWord(w) {
				words = append(words, string(w))
			}
		})
		for w := range strings.FieldsFuncSeq(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
			words = append(words, w)
		}
	}
	for _, w := range words {
		if got, want := string(stem([]byte(w))), string(referenceStem([]byte(w))); got != want {
			t.Errorf("stem(%q) = %q, the reference %q", w, got, want)
		}
	}
	if len(words) < 100000 {
		t.Fatalf("only %d words stemmed", len(words))
	}
}

func endsInAny(c byte, letters string) bool {
	for i := 0; i < len(letters); i++ {
		if letters[i] == c {
			return true
		}
	}
	return false
}
