package stories

import (
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// Word hashing. Articles are compared as sequences of words, each word
// case-folded, accents removed and reduced to a 64-bit FNV-1a hash, so
// the comparison ignores markup, punctuation, spacing and case. Link
// targets, image references and bare URLs are skipped: two copies of a
// story point at different addresses for the same words. A number keeps
// its decimal point ("6.8" is one word, not "6" and "8"), because the
// numbers are often what tells two events of one kind apart.

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// wordHasher appends word hashes; it keeps no state between calls.
type wordHasher struct {
	buf []byte // NFKD scratch for non-ASCII lines
}

// wordHashers are word hashers released, for ContentWords, which is
// asked of every sentence of a summary, to reuse their scratch.
var wordHashers = sync.Pool{New: func() any { return new(wordHasher) }}

// release puts the hasher back in the pool, unless a huge text grew its
// scratch.
func (wh *wordHasher) release() {
	if cap(wh.buf) <= 1<<16 {
		wordHashers.Put(wh)
	}
}

// appendWords appends the hash of every word of line to dst.
func (wh *wordHasher) appendWords(dst []uint64, line string) []uint64 {
	line = wh.decomposed(line)
	h := uint64(fnvOffset)
	n := 0 // bytes in the current word
	flush := func() {
		if n > 0 {
			dst = append(dst, h)
		}
		h, n = fnvOffset, 0
	}
	add := func(c byte) {
		h ^= uint64(c)
		h *= fnvPrime
		n++
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			switch {
			case (c == 'h' || c == 'H') && n == 0 && hasURLPrefix(line[i:]):
				i = skipToSpace(line, i)
			case isAlnumASCII(c):
				// The run of ASCII letters and digits, most of a text, in
				// one loop: what add does for each of its bytes, folded.
				j := i
			run:
				for ; j < len(line); j++ {
					b := line[j]
					switch {
					case 'a' <= b && b <= 'z', '0' <= b && b <= '9':
					case 'A' <= b && b <= 'Z':
						b += 'a' - 'A'
					default:
						break run
					}
					h ^= uint64(b)
					h *= fnvPrime
				}
				n += j - i
				i = j
			case c == '.' && n > 0 && i > 0 && isDigit(line[i-1]) && i+1 < len(line) && isDigit(line[i+1]):
				add(c)
				i++
			case c == ']' && i+1 < len(line) && line[i+1] == '(':
				// "[text](target)": the text is read, the target skipped.
				flush()
				i = mdtext.SkipParens(line, i+1)
			case c == '!' && i+1 < len(line) && line[i+1] == '[':
				// An image: neither alt text nor target is the story.
				flush()
				i = skipImage(line, i)
			default:
				flush()
				i++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		switch {
		case unicode.Is(unicode.Mn, r):
			// An accent split off by NFKD: not part of the comparison.
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			var enc [utf8.UTFMax]byte
			for _, b := range enc[:utf8.EncodeRune(enc[:], unicode.ToLower(r))] {
				add(b)
			}
		default:
			flush()
		}
	}
	flush()
	return dst
}

// decomposed is line in NFKD, through the scratch buffer; a line already
// in NFKD (ASCII, or typographic quotes and dashes, which do not
// decompose) is returned as it is, without a copy.
func (wh *wordHasher) decomposed(line string) string {
	line, wh.buf = nfkd(line, wh.buf)
	return line
}

// nfkd returns s in NFKD, and buf, which holds it when s had to change.
func nfkd(s string, buf []byte) (string, []byte) {
	if isASCII(s) || norm.NFKD.QuickSpanString(s) == len(s) {
		return s, buf
	}
	buf = norm.NFKD.AppendString(buf[:0], s)
	return string(buf), buf
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func hasURLPrefix(s string) bool {
	for _, p := range []string{"http://", "https://"} {
		if len(s) >= len(p) && eqFoldASCII(s[:len(p)], p) {
			return true
		}
	}
	return false
}

func eqFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}

// skipImage returns the index after "![alt](target)" starting at i.
func skipImage(s string, i int) int {
	for j := i + 2; j < len(s); j++ {
		if s[j] == ']' {
			if j+1 < len(s) && s[j+1] == '(' {
				return mdtext.SkipParens(s, j+1)
			}
			return j + 1
		}
	}
	return len(s)
}

func skipToSpace(s string, i int) int {
	for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != ')' && s[i] != '>' {
		i++
	}
	return i
}

// ContentWords returns the hashes of the words of text that are not stop
// words, in order: the vocabulary story detection compares, for other
// stages that compare texts the same way (the extractive summary).
func ContentWords(text string) []uint64 {
	// A word and its space in about six bytes: grown once at most.
	return AppendContentWords(make([]uint64, 0, len(text)/6+1), text)
}

// AppendContentWords appends ContentWords(text) to dst, for a caller
// that keeps the words of many texts in one slice.
func AppendContentWords(dst []uint64, text string) []uint64 {
	wh := wordHashers.Get().(*wordHasher)
	defer wh.release()
	start := len(dst)
	words := wh.appendWords(slices.Grow(dst, len(text)/6+1), text)
	out := words[:start]
	for _, w := range words[start:] {
		if !isStopHash(w) {
			out = append(out, w)
		}
	}
	return out
}
