package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Pre-tokenisation: before byte-pair merging, tiktoken cuts text into
// pieces with one regular expression per encoding. The reference Go
// implementation runs it through a backtracking engine over a rune slice,
// which costs about 85 ms of CPU per benchmark page, five times the whole
// extraction. The functions here find the same pieces in one forward pass:
// each returns the end of the piece that starts at byte i of s (valid
// UTF-8), deciding the alternatives in the expression's order with the
// result its greedy quantifiers and backtracking give. The character
// classes are those of the reference engine: \s is unicode.IsSpace, \p{L}
// and \p{N} Go's Unicode tables. The tests compare every piece count with
// the reference implementation.
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base (U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], W = [\p{Ll}\p{Lm}\p{Lo}\p{M}],
// C = (?i:'s|'t|'re|'ve|'m|'ll|'d)):
//
//	[^\r\n\p{L}\p{N}]?U*W+C?|[^\r\n\p{L}\p{N}]?U+W*C?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+

func nextPieceCL100k(s string, i int) int {
	if s[i] == '\'' {
		if k := contraction(s, i); k > 0 {
			return i + k
		}
	}
	c, n := classAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c&cLetter != 0 {
		return skip(s, i+n, cLetter)
	}
	if c.lead() {
		if c2, n2 := classAt(s, i+n); c2&cLetter != 0 {
			return skip(s, i+n+n2, cLetter)
		}
	}
	if c&cNumber != 0 {
		return numberPiece(s, i+n)
	}
	if end, ok := punctPiece(s, i, c, n, false); ok {
		return end
	}
	return spacePiece(s, i)
}

func nextPieceO200k(s string, i int) int {
	c, n := classAt(s, i)
	// [^\r\n\p{L}\p{N}]?U*W+C?: the optional lead is tried first, then
	// the same without it (the lead may be a mark, which U and W hold).
	if c.lead() {
		if end := upperThenLower(s, i+n); end > 0 {
			return end
		}
	}
	if c&(cUpper|cLower) != 0 {
		if end := upperThenLower(s, i); end > 0 {
			return end
		}
	}
	// [^\r\n\p{L}\p{N}]?U+W*C?
	if c.lead() {
		if c2, _ := classAt(s, i+n); c2&cUpper != 0 {
			return upperRun(s, i+n)
		}
	}
	if c&cUpper != 0 {
		return upperRun(s, i)
	}
	if c&cNumber != 0 {
		return numberPiece(s, i+n)
	}
	if end, ok := punctPiece(s, i, c, n, true); ok {
		return end
	}
	return spacePiece(s, i)
}

// upperThenLower matches U*W+C? at i, or returns -1. U* takes all it can;
// when no W follows, backtracking hands back the run's characters until
// one that is also W (Lm, Lo or a mark) can serve as W+.
func upperThenLower(s string, i int) int {
	u := i
	lastW := -1 // end of the last character of the U run that is also W
	c, n := classAt(s, u)
	for c&cUpper != 0 {
		u += n
		if c&cLower != 0 {
			lastW = u
		}
		c, n = classAt(s, u)
	}
	if c&cLower != 0 {
		w := skip(s, u+n, cLower)
		return w + contraction(s, w)
	}
	if lastW < 0 {
		return -1
	}
	return lastW + contraction(s, lastW)
}

// upperRun matches U+W*C? at i, where s[i] is in U.
func upperRun(s string, i int) int {
	w := skip(s, skip(s, i, cUpper), cLower)
	return w + contraction(s, w)
}

// numberPiece matches the rest of \p{N}{1,3} from i, just after the first
// digit.
func numberPiece(s string, i int) int {
	for k := 1; k < 3; k++ {
		c, n := classAt(s, i)
		if c&cNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// punctPiece matches " ?[^\s\p{L}\p{N}]+[\r\n]*", or with slashTail
// "[\r\n/]*" as the tail; c and n are the class and length of s[i].
func punctPiece(s string, i int, c class, n int, slashTail bool) (int, bool) {
	if s[i] == ' ' {
		if c2, _ := classAt(s, i+n); c2.punct() {
			i, c = i+n, c2
		}
	}
	if !c.punct() {
		return 0, false
	}
	end := skip(s, i, cPunct)
	for end < len(s) && (s[end] == '\r' || s[end] == '\n' || slashTail && s[end] == '/') {
		end++
	}
	return end, true
}

// spacePiece matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, where s[i] is white
// space (every other character is taken by an earlier alternative).
func spacePiece(s string, i int) int {
	end, lastNL, lastStart := i, -1, i
	for end < len(s) {
		c, n := classAt(s, end)
		if c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			lastNL = end + 1
		}
		lastStart = end
		end += n
	}
	switch {
	case end == i:
		// Not reached for valid input; one character keeps the scan moving.
		_, n := classAt(s, i)
		return i + max(n, 1)
	case lastNL > 0:
		// \s*[\r\n]+: backtracking stops at the last line break.
		return lastNL
	case end == len(s) || lastStart == i:
		// \s+(?!\S) at the end of the text, or \s+ for a single space
		// before a non-space.
		return end
	default:
		// \s+(?!\S): all but the last space, which goes with what follows.
		return lastStart
	}
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < len(s) {
		a, b := s[i+1]|0x20, s[i+2]|0x20
		if a == 'r' && b == 'e' || a == 'v' && b == 'e' || a == 'l' && b == 'l' {
			return 3
		}
	}
	return 0
}

// class is the set of the expressions' character classes a character is
// in, so that each character is looked up once however many of them a
// piece tests.
type class uint8

const (
	cLetter  class = 1 << iota // \p{L}
	cNumber                    // \p{N}
	cSpace                     // \s
	cNewline                   // \r or \n
	cUpper                     // o200k's U: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower                     // o200k's W: [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cPunct                     // [^\s\p{L}\p{N}]
	cEnd                       // past the end of the text: in no class
)

// lead is [^\r\n\p{L}\p{N}], the one character that may open a word piece.
func (c class) lead() bool { return c&(cNewline|cLetter|cNumber|cEnd) == 0 }

func (c class) punct() bool { return c&cPunct != 0 }

// classAt returns the class and length of the character at i; past the
// end, cEnd and 0.
func classAt(s string, i int) (class, int) {
	if i >= len(s) {
		return cEnd, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return runeClass(r), n
}

// skip skips the characters of s from i that are in any of want. Text is
// mostly ASCII, which is then a table look-up per byte.
func skip(s string, i int, want class) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if asciiClass[b]&want == 0 {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if runeClass(r)&want == 0 {
			break
		}
		i += n
	}
	return i
}

// asciiClass holds runeClass for every ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]class) {
	for b := range t {
		t[b] = runeClass(rune(b))
	}
	return t
}()

// runeClass classifies r with Go's Unicode tables, as the reference engine
// does: \s is unicode.IsSpace, \p{L} and \p{N} the Unicode categories.
// Letters are sorted into U and W by their category, asking the common
// ones first; a mark is in both U and W and, being no letter, number or
// space, also punctuation.
func runeClass(r rune) class {
	switch {
	case r == '\r' || r == '\n':
		return cSpace | cNewline
	case unicode.IsLetter(r):
		switch {
		case unicode.Is(unicode.Ll, r):
			return cLetter | cLower
		case unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r):
			return cLetter | cUpper
		}
		return cLetter | cUpper | cLower // Lm, Lo
	case unicode.IsNumber(r):
		return cNumber
	case unicode.IsSpace(r):
		return cSpace
	case unicode.Is(unicode.M, r):
		return cPunct | cUpper | cLower
	}
	return cPunct
}
