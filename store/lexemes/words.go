package lexemes

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Each calls fn with the byte offsets of every word of text, in order.
func Each(text string, fn func(start, end int)) {
	eachHashed(text, func(start, end int, _ uint64) { fn(start, end) })
}

// FNV-1a, the hash of a word as eachHashed scans it.
const (
	hashOffset = 14695981039346656037
	hashPrime  = 1099511628211
)

// eachHashed is Each, with each word's FNV-1a hash of its bytes taken as
// it is scanned: a document finds the words it has met by it without
// hashing them again.
func eachHashed(text string, fn func(start, end int, h uint64)) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if !asciiWordByte(c) {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !inWord(r) {
			i += size
			continue
		}
		h := uint64(hashOffset)
		j := i
		for j < len(text) {
			c := text[j]
			if c < utf8.RuneSelf {
				if !asciiWordByte(c) {
					break
				}
				h = (h ^ uint64(c)) * hashPrime
				j++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[j:])
			if !inWord(r) {
				break
			}
			for _, c := range []byte(text[j : j+size]) {
				h = (h ^ uint64(c)) * hashPrime
			}
			j += size
		}
		fn(i, j, h)
		i = j
	}
}

func asciiWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// inWord: letters, digits and combining marks (an accent written as its
// own character belongs to the letter before it).
func inWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Fold lower-cases a word and removes its diacritics ("Café" is "cafe").
func Fold(w string) string {
	if !isASCII(w) {
		return foldUnicode(w)
	}
	return strings.ToLower(w)
}

func foldUnicode(w string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Words are the folded words of text, in order.
func Words(text string) []string {
	var out []string
	Each(text, func(start, end int) { out = append(out, Fold(text[start:end])) })
	return out
}
