package relevance

// This file implements the Porter2 ("Snowball English") stemmer, as
// specified at snowballstem.org/algorithms/english/stemmer.html. It works in
// place on lower-case ASCII words, so scoring an article stems every token
// without allocating.

// stem returns the stem of w, reusing w's storage. w must be lower-case
// ASCII letters (and apostrophes); anything else is returned unchanged by
// the caller, which only stems such words.
func stem(w []byte) []byte {
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
	w = step1b(w, r1)
	w = step1c(w)
	w = step2(w, r1)
	w = step3(w, r1, r2)
	w = step4(w, r2)
	w = step5(w, r1, r2)
	return lowerY(w)
}

func exceptionalForm(w []byte) (string, bool) {
	switch string(w) {
	case "skis":
		return "ski", true
	case "skies":
		return "sky", true
	case "dying":
		return "die", true
	case "lying":
		return "lie", true
	case "tying":
		return "tie", true
	case "idly":
		return "idl", true
	case "gently":
		return "gentl", true
	case "ugly":
		return "ugli", true
	case "early":
		return "earli", true
	case "only":
		return "onli", true
	case "singly":
		return "singl", true
	case "sky", "news", "howe", "atlas", "cosmos", "bias", "andes":
		return string(w), true
	}
	return "", false
}

func isInvariantAfter1a(w []byte) bool {
	switch string(w) {
	case "inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed":
		return true
	}
	return false
}

func lowerY(w []byte) []byte {
	for i, c := range w {
		if c == 'Y' {
			w[i] = 'y'
		}
	}
	return w
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func isDouble(w []byte) bool {
	n := len(w)
	if n < 2 || w[n-1] != w[n-2] {
		return false
	}
	switch w[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

func isLiEnding(c byte) bool {
	switch c {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

// regions returns the starts of R1 and R2 (len(w) when empty).
func regions(w []byte) (r1, r2 int) {
	switch {
	case hasPrefix(w, "gener"), hasPrefix(w, "arsen"):
		r1 = 5
	case hasPrefix(w, "commun"):
		r1 = 6
	default:
		r1 = regionAfter(w, 0)
	}
	return r1, regionAfter(w, r1)
}

// regionAfter finds the region after the first non-vowel that follows a
// vowel, looking from start on.
func regionAfter(w []byte, start int) int {
	for i := start + 1; i < len(w); i++ {
		if !isVowel(w[i]) && isVowel(w[i-1]) {
			return i + 1
		}
	}
	return len(w)
}

// endsShortSyllable: non-vowel, vowel, non-vowel other than w, x or Y; or
// a vowel at the start followed by a non-vowel.
func endsShortSyllable(w []byte) bool {
	n := len(w)
	if n >= 3 {
		c := w[n-1]
		return !isVowel(w[n-3]) && isVowel(w[n-2]) && !isVowel(c) && c != 'w' && c != 'x' && c != 'Y'
	}
	return n == 2 && isVowel(w[0]) && !isVowel(w[1])
}

func isShortWord(w []byte, r1 int) bool {
	return r1 >= len(w) && endsShortSyllable(w)
}

func hasPrefix(w []byte, p string) bool {
	return len(w) >= len(p) && string(w[:len(p)]) == p
}

// hasSuffix compares from the last byte backwards: most suffix tests fail
// on the first comparison, and stemming runs these tests for every word.
func hasSuffix(w []byte, s string) bool {
	if len(w) < len(s) {
		return false
	}
	off := len(w) - len(s)
	for i := len(s) - 1; i >= 0; i-- {
		if w[off+i] != s[i] {
			return false
		}
	}
	return true
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// replaceSuffix swaps the last n bytes for r.
func replaceSuffix(w []byte, n int, r string) []byte {
	return append(w[:len(w)-n], r...)
}

func step0(w []byte) []byte {
	for _, s := range [...]string{"'s'", "'s", "'"} {
		if hasSuffix(w, s) {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

func step1a(w []byte) []byte {
	switch {
	case hasSuffix(w, "sses"):
		return w[:len(w)-2]
	case hasSuffix(w, "ied"), hasSuffix(w, "ies"):
		if len(w) > 4 {
			return w[:len(w)-2]
		}
		return w[:len(w)-1]
	case hasSuffix(w, "us"), hasSuffix(w, "ss"):
		return w
	case hasSuffix(w, "s"):
		if hasVowel(w[:len(w)-2]) {
			return w[:len(w)-1]
		}
	}
	return w
}

// step1bSuffixes are Step 1b's suffixes, longest first, by last letter.
var step1bSuffixes = byLastLetter([]string{"eedly", "ingly", "edly", "eed", "ing", "ed"}, func(s string) string { return s })

func step1b(w []byte, r1 int) []byte {
	if len(w) == 0 {
		return w
	}
	for _, s := range step1bSuffixes[w[len(w)-1]] {
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

func step1c(w []byte) []byte {
	n := len(w)
	if n > 2 && (w[n-1] == 'y' || w[n-1] == 'Y') && !isVowel(w[n-2]) {
		w[n-1] = 'i'
	}
	return w
}

type rule struct{ suffix, repl string }

// step2Rules is ordered longest first: the longest matching suffix decides,
// even when its condition then fails.
var step2Rules = [...]rule{
	{"ization", "ize"}, {"ational", "ate"}, {"fulness", "ful"}, {"ousness", "ous"}, {"iveness", "ive"},
	{"tional", "tion"}, {"biliti", "ble"}, {"lessli", "less"},
	{"entli", "ent"}, {"ation", "ate"}, {"alism", "al"}, {"aliti", "al"}, {"ousli", "ous"}, {"iviti", "ive"}, {"fulli", "ful"},
	{"enci", "ence"}, {"anci", "ance"}, {"abli", "able"}, {"izer", "ize"}, {"ator", "ate"}, {"alli", "al"},
	{"bli", "ble"}, {"ogi", "og"},
	{"li", ""},
}

// byLastLetter groups the suffixes of a step (the rules' keys) by their
// last letter, each group in the step's order: a word is compared with
// the suffixes that end as it does, the first of them that matches
// decides as the first of all of them did, and most words end in a
// letter no suffix of the step ends in.
func byLastLetter[T any](rules []T, suffix func(T) string) (by [256][]T) {
	for _, r := range rules {
		s := suffix(r)
		by[s[len(s)-1]] = append(by[s[len(s)-1]], r)
	}
	return by
}

func ruleSuffix(r rule) string { return r.suffix }

var step2ByLast = byLastLetter(step2Rules[:], ruleSuffix)

func step2(w []byte, r1 int) []byte {
	if len(w) == 0 {
		return w
	}
	for _, r := range step2ByLast[w[len(w)-1]] {
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

var step3Rules = [...]rule{
	{"ational", "ate"}, {"tional", "tion"}, {"alize", "al"}, {"icate", "ic"}, {"iciti", "ic"},
	{"ative", ""}, {"ical", "ic"}, {"ness", ""}, {"ful", ""},
}

var step3ByLast = byLastLetter(step3Rules[:], ruleSuffix)

func step3(w []byte, r1, r2 int) []byte {
	if len(w) == 0 {
		return w
	}
	for _, r := range step3ByLast[w[len(w)-1]] {
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

var step4Suffixes = [...]string{
	"ement", "ance", "ence", "able", "ible", "ment",
	"ant", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion",
	"al", "er", "ic",
}

var step4ByLast = byLastLetter(step4Suffixes[:], func(s string) string { return s })

func step4(w []byte, r2 int) []byte {
	if len(w) == 0 {
		return w
	}
	for _, s := range step4ByLast[w[len(w)-1]] {
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

func step5(w []byte, r1, r2 int) []byte {
	n := len(w)
	switch {
	case hasSuffix(w, "e"):
		if n-1 >= r2 || n-1 >= r1 && !endsShortSyllable(w[:n-1]) {
			return w[:n-1]
		}
	case hasSuffix(w, "l"):
		if n-1 >= r2 && n >= 2 && w[n-2] == 'l' {
			return w[:n-1]
		}
	}
	return w
}
