package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokeniser as it was before the byte class table: one predicate
// call per class test. The splitter tests compare the current one with it
// piece by piece, on text where tiktoken-go's counts alone could hide a
// misplaced cut. It is kept whole, helpers that did not change included,
// so that a later change to the current ones is compared with something
// that did not change with it.
func refNextPieceCL100k(s string, i int) int {
	r, n := refRuneAt(s, i)
	if r == '\'' {
		if k := refContraction(s, i); k > 0 {
			return i + k
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if refIsLetter(r) {
		return refSkipASCII(s, i+n, &refAsciiLetter, refIsLetter)
	}
	if refLead(r) {
		if r2, _ := refRuneAt(s, i+n); refIsLetter(r2) {
			return refSkipASCII(s, i+n, &refAsciiLetter, refIsLetter)
		}
	}
	if end, ok := refNumberPiece(s, i, r, n); ok {
		return end
	}
	if end, ok := refPunctPiece(s, i, r, n, false); ok {
		return end
	}
	return refSpacePiece(s, i)
}

func refNextPieceO200k(s string, i int) int {
	r, n := refRuneAt(s, i)
	// [^\r\n\p{L}\p{N}]?U*W+C?: the optional refLead is tried first, then
	// the same without it (the refLead may be a mark, which U and W hold).
	if refLead(r) {
		if end := refUpperThenLower(s, i+n); end > 0 {
			return end
		}
	}
	if end := refUpperThenLower(s, i); end > 0 {
		return end
	}
	// [^\r\n\p{L}\p{N}]?U+W*C?
	if refLead(r) {
		if r2, _ := refRuneAt(s, i+n); refIsUpperish(r2) {
			return refUpperRun(s, i+n)
		}
	}
	if refIsUpperish(r) {
		return refUpperRun(s, i)
	}
	if end, ok := refNumberPiece(s, i, r, n); ok {
		return end
	}
	if end, ok := refPunctPiece(s, i, r, n, true); ok {
		return end
	}
	return refSpacePiece(s, i)
}

// refUpperThenLower matches U*W+C? at i, or returns -1. U* takes all it can;
// when no W follows, backtracking hands back the run's characters until
// one that is also W (Lm, Lo or a mark) can serve as W+.
func refUpperThenLower(s string, i int) int {
	u := i
	lastW := -1 // end of the last character of the U run that is also W
	for u < len(s) {
		r, n := refRuneAt(s, u)
		if !refIsUpperish(r) {
			break
		}
		u += n
		if refIsLowerish(r) {
			lastW = u
		}
	}
	if r, _ := refRuneAt(s, u); u < len(s) && refIsLowerish(r) {
		w := refSkipASCII(s, u, &refAsciiLower, refIsLowerish)
		return w + refContraction(s, w)
	}
	if lastW < 0 {
		return -1
	}
	return lastW + refContraction(s, lastW)
}

// refUpperRun matches U+W*C? at i, where s[i] is in U.
func refUpperRun(s string, i int) int {
	u := refSkipASCII(s, i, &refAsciiUpper, refIsUpperish)
	w := refSkipASCII(s, u, &refAsciiLower, refIsLowerish)
	return w + refContraction(s, w)
}

// refNumberPiece matches \p{N}{1,3}.
func refNumberPiece(s string, i int, r rune, n int) (int, bool) {
	if !refIsNumber(r) {
		return 0, false
	}
	end := i + n
	for k := 1; k < 3 && end < len(s); k++ {
		r, n := refRuneAt(s, end)
		if !refIsNumber(r) {
			break
		}
		end += n
	}
	return end, true
}

// refPunctPiece matches " ?[^\s\p{L}\p{N}]+[\r\n]*", or with slashTail
// "[\r\n/]*" as the tail.
func refPunctPiece(s string, i int, r rune, n int, slashTail bool) (int, bool) {
	start := i
	if r == ' ' {
		if r2, _ := refRuneAt(s, i+n); i+n < len(s) && refIsPunct(r2) {
			start = i + n
		}
	}
	if r0, _ := refRuneAt(s, start); start >= len(s) || !refIsPunct(r0) {
		return 0, false
	}
	end := refSkipASCII(s, start, &refAsciiPunct, refIsPunct)
	for end < len(s) && (s[end] == '\r' || s[end] == '\n' || slashTail && s[end] == '/') {
		end++
	}
	return end, true
}

// refSpacePiece matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, where s[i] is white
// space (every other character is taken by an earlier alternative).
func refSpacePiece(s string, i int) int {
	end, lastNL, lastStart := i, -1, i
	for end < len(s) {
		r, n := refRuneAt(s, end)
		if !refIsSpace(r) {
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
		_, n := refRuneAt(s, i)
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

// refContraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
func refContraction(s string, i int) int {
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

// refRuneAt decodes the rune at i; past the end it returns -1 and 0.
func refRuneAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// refSkipASCII skips the characters of s from i that are in a class: ascii
// holds the class's answer for each ASCII byte, in answers the rest. Text
// is mostly ASCII, which is then a table look-up per byte rather than a
// call per character.
func refSkipASCII(s string, i int, ascii *[utf8.RuneSelf]bool, in func(rune) bool) int {
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

// The ASCII answers of the classes refSkipASCII skips.
var refAsciiLetter, refAsciiLower, refAsciiUpper, refAsciiPunct = refAsciiTable(refIsLetter), refAsciiTable(refIsLowerish),
	refAsciiTable(refIsUpperish), refAsciiTable(refIsPunct)

func refAsciiTable(in func(rune) bool) [utf8.RuneSelf]bool {
	var t [utf8.RuneSelf]bool
	for c := range t {
		t[c] = in(rune(c))
	}
	return t
}

// refLead is [^\r\n\p{L}\p{N}], the one character that may open a word piece.
func refLead(r rune) bool {
	return r >= 0 && r != '\r' && r != '\n' && !refIsLetter(r) && !refIsNumber(r)
}

// refIsPunct is [^\s\p{L}\p{N}].
func refIsPunct(r rune) bool { return r >= 0 && !refIsSpace(r) && !refIsLetter(r) && !refIsNumber(r) }

func refIsNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// refIsUpperish is o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func refIsUpperish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// refIsLowerish is o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func refIsLowerish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// refIsLetter and refIsSpace are the classes \p{L} and \s of the encodings'
// pre-tokenisation expressions, without the unicode tables for ASCII.
func refIsLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return r|0x20 >= 'a' && r|0x20 <= 'z'
	}
	return unicode.IsLetter(r)
}

func refIsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}
	return unicode.IsSpace(r)
}
