package stories

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// token is one word of an article as the profile reads it: case-folded,
// accents removed, with what its spelling said about it.
type token struct {
	text string
	// capital: the word began with an upper-case letter; sentenceStart: it
	// opened a sentence (so the capital says nothing); digit: it holds a
	// digit (a figure, a date, a version).
	capital, sentenceStart, digit bool
	// id numbers the distinct texts of one tokenizer's tokens, from 0 in
	// the order first met, so that what depends on the text alone (stop
	// word, stem, hash) is worked out once per word.
	id int32
}

// tokenizer splits lines of Markdown into tokens. It keeps one scratch
// buffer between lines and no other state.
type tokenizer struct {
	buf []byte
	cur []byte
	// ids and words: each distinct text once (token.id).
	ids   map[string]int32
	words []string
}

// intern returns the text and id of the word in tz.cur.
func (tz *tokenizer) intern() (string, int32) {
	if id, ok := tz.ids[string(tz.cur)]; ok {
		return tz.words[id], id
	}
	if tz.ids == nil {
		tz.ids = make(map[string]int32, 64)
	}
	w, id := string(tz.cur), int32(len(tz.words))
	tz.ids[w] = id
	tz.words = append(tz.words, w)
	return w, id
}

// appendTokens appends the tokens of line to dst. A sentence opens at the
// start of the line and after ".", "!" or "?"; link targets, images and
// bare URLs are skipped like in the word hashes of signatures. Inside a
// word an apostrophe ends it ("Sudan's" is "sudan"), and a "." or ","
// between digits stays in it ("6.1", "30,000" read as "30000").
func (tz *tokenizer) appendTokens(dst []token, line string) []token {
	if !isASCII(line) {
		tz.buf = norm.NFKD.AppendString(tz.buf[:0], line)
		line = string(tz.buf)
	}
	sentence := true
	var cur token
	tz.cur = tz.cur[:0]
	skipRest := false // after an apostrophe: the rest of the word is dropped
	flush := func() {
		if len(tz.cur) > 0 {
			cur.text, cur.id = tz.intern()
			cur.sentenceStart = sentence
			dst = append(dst, cur)
			sentence = false
		}
		tz.cur = tz.cur[:0]
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
		tz.cur = utf8.AppendRune(tz.cur, unicode.ToLower(r))
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			switch {
			case (c == 'h' || c == 'H') && len(tz.cur) == 0 && hasURLPrefix(line[i:]):
				i = skipToSpace(line, i)
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
				add(rune(c))
				i++
			case (c == '.' || c == ',') && len(tz.cur) > 0 && !skipRest && isDigit(line[i-1]) && i+1 < len(line) && isDigit(line[i+1]):
				if c == '.' {
					tz.cur = append(tz.cur, '.')
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
	return dst
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

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
