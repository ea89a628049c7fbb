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
	r, n := runeAt(s, i)
	if r == '\'' {
		if k := contraction(s, i); k > 0 {
			return i + k
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r) {
		return skipASCII(s, i+n, &asciiLetter, isLetter)
	}
	if lead(r) {
		if r2, _ := runeAt(s, i+n); isLetter(r2) {
			return skipASCII(s, i+n, &asciiLetter, isLetter)
		}
	}
	if end, ok := numberPiece(s, i, r, n); ok {
		return end
	}
	if end, ok := punctPiece(s, i, r, n, false); ok {
		return end
	}
	return spacePiece(s, i)
}

func nextPieceO200k(s string, i int) int {
	r, n := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]?U*W+C?: the optional lead is tried first, then
	// the same without it (the lead may be a mark, which U and W hold).
	if lead(r) {
		if end := upperThenLower(s, i+n); end > 0 {
			return end
		}
	}
	if end := upperThenLower(s, i); end > 0 {
		return end
	}
	// [^\r\n\p{L}\p{N}]?U+W*C?
	if lead(r) {
		if r2, _ := runeAt(s, i+n); isUpperish(r2) {
			return upperRun(s, i+n)
		}
	}
	if isUpperish(r) {
		return upperRun(s, i)
	}
	if end, ok := numberPiece(s, i, r, n); ok {
		return end
	}
	if end, ok := punctPiece(s, i, r, n, true); ok {
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
	for u < len(s) {
		r, n := runeAt(s, u)
		if !isUpperish(r) {
			break
		}
		u += n
		if isLowerish(r) {
			lastW = u
		}
	}
	if r, _ := runeAt(s, u); u < len(s) && isLowerish(r) {
		w := skipASCII(s, u, &asciiLower, isLowerish)
		return w + contraction(s, w)
	}
	if lastW < 0 {
		return -1
	}
	return lastW + contraction(s, lastW)
}

// upperRun matches U+W*C? at i, where s[i] is in U.
func upperRun(s string, i int) int {
	u := skipASCII(s, i, &asciiUpper, isUpperish)
	w := skipASCII(s, u, &asciiLower, isLowerish)
	return w + contraction(s, w)
}

// numberPiece matches \p{N}{1,3}.
func numberPiece(s string, i int, r rune, n int) (int, bool) {
	if !isNumber(r) {
		return 0, false
	}
	end := i + n
	for k := 1; k < 3 && end < len(s); k++ {
		r, n := runeAt(s, end)
		if !isNumber(r) {
			break
		}
		end += n
	}
	return end, true
}

// punctPiece matches " ?[^\s\p{L}\p{N}]+[\r\n]*", or with slashTail
// "[\r\n/]*" as the tail.
func punctPiece(s string, i int, r rune, n int, slashTail bool) (int, bool) {
	start := i
	if r == ' ' {
		if r2, _ := runeAt(s, i+n); i+n < len(s) && isPunct(r2) {
			start = i + n
		}
	}
	if r0, _ := runeAt(s, start); start >= len(s) || !isPunct(r0) {
		return 0, false
	}
	end := skipASCII(s, start, &asciiPunct, isPunct)
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
		r, n := runeAt(s, end)
		if !isSpace(r) {
			break
		}
		if r == '\r' || r == '\n' {
			lastNL = end + 1
		}
		lastStart = end
		end += n
	}
	switch {
	case end == i:
		// Not reached for valid input; one byte keeps the scan moving.
		_, n := runeAt(s, i)
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

// runeAt decodes the rune at i; past the end it returns -1 and 0.
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// skipASCII skips the characters of s from i that are in a class: ascii
// holds the class's answer for each ASCII byte, in answers the rest. Text
// is mostly ASCII, which is then a table look-up per byte rather than a
// call per character.
func skipASCII(s string, i int, ascii *[utf8.RuneSelf]bool, in func(rune) bool) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !ascii[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !in(r) {
			break
		}
		i += n
	}
	return i
}

// The ASCII answers of the classes skipASCII skips.
var asciiLetter, asciiLower, asciiUpper, asciiPunct = asciiTable(isLetter), asciiTable(isLowerish),
	asciiTable(isUpperish), asciiTable(isPunct)

func asciiTable(in func(rune) bool) [utf8.RuneSelf]bool {
	var t [utf8.RuneSelf]bool
	for c := range t {
		t[c] = in(rune(c))
	}
	return t
}

// lead is [^\r\n\p{L}\p{N}], the one character that may open a word piece.
func lead(r rune) bool {
	return r >= 0 && r != '\r' && r != '\n' && !isLetter(r) && !isNumber(r)
}

// isPunct is [^\s\p{L}\p{N}].
func isPunct(r rune) bool { return r >= 0 && !isSpace(r) && !isLetter(r) && !isNumber(r) }

func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isUpperish is o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpperish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLowerish is o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLowerish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isLetter and isSpace are the classes \p{L} and \s of the encodings'
// pre-tokenisation expressions, without the unicode tables for ASCII.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return r|0x20 >= 'a' && r|0x20 <= 'z'
	}
	return unicode.IsLetter(r)
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}
	return unicode.IsSpace(r)
}
