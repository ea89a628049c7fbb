package stories

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// token is one word of an article as the profile reads it: case-folded,
// accents removed (its text, the tokenizer's words[id]), with what its
// spelling said about it. It holds no pointer: an article's thousands of
// tokens are appended and kept without the garbage collector's write
// barriers and scans, which cost more than reading the text by its id.
type token struct {
	// id numbers the distinct texts of one tokenizer's tokens, from 0 in
	// the order first met, so that what depends on the text alone (stop
	// word, stem, hash) is worked out once per word.
	id int32
	// capital: the word began with an upper-case letter; sentenceStart: it
	// opened a sentence (so the capital says nothing); digit: it holds a
	// digit (a figure, a date, a version).
	capital, sentenceStart, digit bool
}

// tokenizer splits lines of Markdown into tokens. It keeps one scratch
// buffer between lines and no other state.
type tokenizer struct {
	buf []byte
	cur []byte
	// words holds each distinct text once (token.id), hashes their
	// hashes; slots finds them: an open-addressing table of id+1 (0 an
	// empty slot), a power of two in size and at most half full. A map
	// keyed by the text was a fifth of a profile's cost.
	words  []string
	hashes []uint32
	slots  []int32
	// text holds the bytes of every distinct text, ends where each ends:
	// a text's string is made when the line it was first met in is read,
	// one string for the new texts of a line, not one allocation each.
	// The strings are cut from it, so a word kept (a profile's, a
	// remembered stem's key) holds that line's new texts in memory.
	text []byte
	ends []int32
}

// newTokenizer returns a tokenizer sized for about n distinct words.
func newTokenizer(n int) tokenizer {
	size := 64
	for size < 2*n {
		size *= 2
	}
	return tokenizer{slots: make([]int32, size), words: make([]string, 0, n), hashes: make([]uint32, 0, n)}
}

// reset empties the tokenizer for about n distinct words, reusing its
// table and buffers.
func (tz *tokenizer) reset(n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	tz.slots = slices.Grow(tz.slots[:0], size)[:size]
	clear(tz.slots)
	clear(tz.words)
	tz.words, tz.hashes = tz.words[:0], tz.hashes[:0]
	tz.text, tz.ends = tz.text[:0], tz.ends[:0]
}

// intern returns the id of the word in tz.cur.
func (tz *tokenizer) intern() int32 {
	h := uint32(fnvOffset32)
	for _, c := range tz.cur {
		h ^= uint32(c)
		h *= fnvPrime32
	}
	return tz.internHashed(h)
}

// internHashed is intern of the word in tz.cur whose hash, h, its
// reader took while writing it.
func (tz *tokenizer) internHashed(h uint32) int32 {
	if len(tz.slots) == 0 {
		fresh := newTokenizer(0)
		tz.slots, tz.words, tz.hashes = fresh.slots, fresh.words, fresh.hashes
		tz.text, tz.ends = tz.text[:0], tz.ends[:0]
	}
	mask := uint32(len(tz.slots) - 1)
	i := h & mask
	for ; tz.slots[i] != 0; i = (i + 1) & mask {
		if id := tz.slots[i] - 1; tz.hashes[id] == h && string(tz.textOf(id)) == string(tz.cur) {
			return id
		}
	}
	id := int32(len(tz.hashes))
	tz.text = append(tz.text, tz.cur...)
	tz.ends = append(tz.ends, int32(len(tz.text)))
	tz.hashes = append(tz.hashes, h)
	tz.slots[i] = id + 1
	if 2*len(tz.hashes) > len(tz.slots) {
		tz.grow()
	}
	return id
}

// textOf is the bytes of text id.
func (tz *tokenizer) textOf(id int32) []byte {
	start := int32(0)
	if id > 0 {
		start = tz.ends[id-1]
	}
	return tz.text[start:tz.ends[id]]
}

// addWords makes the strings of the texts interned since it was last
// called, cut from one string.
func (tz *tokenizer) addWords() {
	n := len(tz.words)
	if n == len(tz.ends) {
		return
	}
	start := int32(0)
	if n > 0 {
		start = tz.ends[n-1]
	}
	all := string(tz.text[start:])
	for _, end := range tz.ends[n:] {
		tz.words = append(tz.words, all[:end-start])
		all, start = all[end-start:], end
	}
}

// grow doubles the table of slots, in the array it has when the array
// is large enough: a pooled tokenizer's table grown by an earlier text
// of many distinct words (a fifth of its bytes, not a twentieth) is not
// made anew for each such text.
func (tz *tokenizer) grow() {
	if n := 2 * len(tz.slots); n <= cap(tz.slots) {
		tz.slots = tz.slots[:n]
		clear(tz.slots)
	} else {
		tz.slots = make([]int32, n)
	}
	mask := uint32(len(tz.slots) - 1)
	for id, h := range tz.hashes {
		i := h & mask
		for tz.slots[i] != 0 {
			i = (i + 1) & mask
		}
		tz.slots[i] = int32(id) + 1
	}
}

// 32-bit FNV-1a, for the table of words.
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

// appendTokens appends the tokens of line to dst. A sentence opens at the
// start of the line and after ".", "!" or "?"; link targets, images and
// bare URLs are skipped like in the word hashes of signatures. Inside a
// word an apostrophe ends it ("Sudan's" is "sudan"), and a "." or ","
// between digits stays in it ("6.1", "30,000" read as "30000").
func (tz *tokenizer) appendTokens(dst []token, line string) []token {
	line = tz.decomposed(line)
	sentence := true
	var cur token
	tz.cur = tz.cur[:0]
	// h is the FNV-1a hash of tz.cur, taken as its bytes are written, for
	// intern: not a second pass over each word.
	h := uint32(fnvOffset32)
	skipRest := false // after an apostrophe: the rest of the word is dropped
	flush := func() {
		if len(tz.cur) > 0 {
			cur.id = tz.internHashed(h)
			cur.sentenceStart = sentence
			dst = append(dst, cur)
			sentence = false
		}
		tz.cur = tz.cur[:0]
		h = fnvOffset32
		cur = token{}
		skipRest = false
	}
	add := func(r rune) {
		if skipRest {
			return
		}
		if len(tz.cur) == 0 {
			cur.capital = unicode.IsUpper(r)
		}
		if '0' <= r && r <= '9' {
			cur.digit = true
		}
		n := len(tz.cur)
		tz.cur = utf8.AppendRune(tz.cur, unicode.ToLower(r))
		for _, c := range tz.cur[n:] {
			h ^= uint32(c)
			h *= fnvPrime32
		}
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			switch {
			case (c == 'h' || c == 'H') && len(tz.cur) == 0 && hasURLPrefix(line[i:]):
				i = skipToSpace(line, i)
			case isAlnumASCII(c):
				// The run of ASCII letters and digits, most of a text, at
				// once: what add does for each of its bytes.
				j := i + 1
				for j < len(line) && isAlnumASCII(line[j]) {
					j++
				}
				if !skipRest {
					if len(tz.cur) == 0 {
						cur.capital = 'A' <= c && c <= 'Z'
					}
					for _, b := range []byte(line[i:j]) {
						switch {
						case 'A' <= b && b <= 'Z':
							b += 'a' - 'A'
						case b <= '9':
							cur.digit = true
						}
						tz.cur = append(tz.cur, b)
						h ^= uint32(b)
						h *= fnvPrime32
					}
				}
				i = j
			case (c == '.' || c == ',') && len(tz.cur) > 0 && !skipRest && isDigit(line[i-1]) && i+1 < len(line) && isDigit(line[i+1]):
				if c == '.' {
					tz.cur = append(tz.cur, '.')
					h ^= '.'
					h *= fnvPrime32
				}
				i++
			case c == '\'' && len(tz.cur) > 0 && i+1 < len(line) && isLetter(line[i+1]):
				skipRest = true
				i++
			case c == ']' && i+1 < len(line) && line[i+1] == '(':
				flush()
				i = mdtext.SkipParens(line, i+1)
			case c == '!' && i+1 < len(line) && line[i+1] == '[':
				flush()
				i = skipImage(line, i)
			case c == '.' || c == '!' || c == '?':
				flush()
				sentence = sentenceEnds(line, i)
				i++
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
		case r == '’' && len(tz.cur) > 0 && i < len(line) && isLetter(line[i]):
			skipRest = true
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			add(r)
		default:
			flush()
		}
	}
	flush()
	tz.addWords()
	return dst
}

// decomposed is line in NFKD (nfkd), through the scratch buffer.
func (tz *tokenizer) decomposed(line string) string {
	line, tz.buf = nfkd(line, tz.buf)
	return line
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isAlnumASCII(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' }

// sentenceEnds reports whether the "." (or "!", "?") at s[i] ends a
// sentence: it is followed by a space, or a closing quote or bracket and
// a space, or the end of the line. "U.S." and "6.1" are not ends; "Mr."
// is, which only costs the name after it its capital's evidence.
func sentenceEnds(s string, i int) bool {
	j := i + 1
	for j < len(s) && strings.IndexByte(`"')]*_`, s[j]) >= 0 {
		j++
	}
	if j >= len(s) {
		return true
	}
	if s[j] != ' ' {
		return false
	}
	// "U.S. officials": a single letter before the dot is an initial.
	if i >= 2 && isLetter(s[i-1]) && (s[i-2] == '.' || s[i-2] == ' ') {
		return false
	}
	return true
}
