package stories

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// Site furniture that travels with a syndicated copy but says nothing
// about the event: share bars, newsletter pitches, copyright lines,
// bylines, "related coverage" boxes, feed teasers' "continue reading".
// Two copies of one story differ mostly in these lines, and two different
// stories from one site share them, so both comparisons are cleaner
// without them. Matching is by line: a paragraph of prose that merely
// contains one of these words is kept.

// boilerplatePrefixes start a furniture line (lower-cased).
var boilerplatePrefixes = []string{
	"advertisement", "sponsored", "share this", "share on", "share:", "follow us",
	"follow the ", "sign up", "subscribe", "listen to this article", "download the ",
	"comments are closed", "continue reading", "read more", "read the full",
	"click here", "photo:", "photo credit", "image:", "credit:", "©", "copyright ",
	"(reporting by", "reporting by", "(editing by", "have a news tip", "this story was originally",
	"this article was originally", "this article originally", "originally published",
	"the post ", "updated ", "published ", "posted ", "by ",
}

// boilerplateContains mark a furniture line anywhere in it.
var boilerplateContains = []string{
	"all rights reserved", "may not be published, broadcast", "may earn a commission",
	"appeared first on", "editorial policy", "in your inbox",
}

// asBytes are patterns as byte slices, to search lines lower-cased into
// a buffer.
func asBytes(patterns []string) [][]byte {
	out := make([][]byte, len(patterns))
	for i, p := range patterns {
		out[i] = []byte(p)
	}
	return out
}

var (
	boilerplatePrefixBytes = asBytes(boilerplatePrefixes)
	relatedPrefixBytes     = asBytes(relatedPrefixes)
)

// relatedPrefixes open a box of links to other stories; the list that
// follows them is furniture too.
var relatedPrefixes = []string{
	"related", "more from", "more on this", "see also", "read next", "recommended",
	"you may also like", "most read", "popular now", "further reading",
}

// maxFurnitureWords is the longest line that can be furniture: prose
// paragraphs are longer, so a long paragraph is never dropped.
const maxFurnitureWords = 40

// IsFurniture reports whether a trimmed line is site furniture (a share
// bar, a byline, a newsletter pitch, a copyright line, a "read more").
func IsFurniture(line string) bool {
	if line == "" {
		return false
	}
	var buf [lowerBuffer]byte
	l, short := lowerCounted(buf[:0], line, maxFurnitureWords)
	if !short {
		return false
	}
	if string(l) == "…" || string(l) == "[…]" || string(l) == "[...]" || string(l) == "..." {
		return true
	}
	if len(l) == 0 {
		return false
	}
	// Only the prefixes that open with the line's first byte can match.
	for _, i := range boilerplatePrefixesByFirst[l[0]] {
		if bytes.HasPrefix(l, boilerplatePrefixBytes[i]) {
			// "by " and "updated " only as short byline/date lines.
			switch boilerplatePrefixes[i] {
			case "by ", "updated ", "published ", "posted ":
				if moreWordsThan(l, 12) {
					continue
				}
			}
			return true
		}
	}
	return containsAnchored(l, boilerplateContainsAnchors)
}

// opensRelatedBox reports whether a line heads a list of other stories.
func opensRelatedBox(line string) bool {
	var buf [lowerBuffer]byte
	l, short := lowerCounted(buf[:0], line, 8)
	if !short {
		return false
	}
	for _, p := range relatedPrefixBytes {
		if bytes.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// boilerplatePrefixesByFirst lists, for each byte, the boilerplatePrefixes
// that open with it: a line is compared with those alone, not all 34.
var boilerplatePrefixesByFirst = func() (by [256][]int) {
	for i, p := range boilerplatePrefixes {
		by[p[0]] = append(by[p[0]], i)
	}
	return by
}()

// anchored is a pattern searched through one of its bytes, the one
// rarest in English text: where that byte occurs, the pattern is
// compared around it. Searching by the first byte stopped at every
// "a", "e" or "i" of a line.
type anchored struct {
	pattern []byte
	at      int // the anchor's index in pattern
}

// anchorGroup is the patterns that share an anchor byte, searched in one
// pass over the line.
type anchorGroup struct {
	anchor   byte
	patterns []anchored
}

// boilerplateContainsAnchors are boilerplateContains grouped by anchor.
var boilerplateContainsAnchors = anchorGroups(boilerplateContains)

// byteRarity orders the bytes of English text from rarest to most
// common; a byte not listed is rarer than all of them.
const byteRarity = "zqxjkvbpygfwmucldrhsnioate ,."

// anchorGroups chooses each pattern's rarest byte and groups the patterns
// by it, in the order the anchors are first chosen.
func anchorGroups(patterns []string) []anchorGroup {
	var groups []anchorGroup
	for _, p := range patterns {
		if p == "" {
			panic("stories: an empty furniture pattern")
		}
		best, rank := 0, len(byteRarity)+1
		for i := 0; i < len(p); i++ {
			r := strings.IndexByte(byteRarity, p[i])
			if r < 0 {
				r = -1
			}
			if r < rank {
				best, rank = i, r
			}
		}
		a := anchored{pattern: []byte(p), at: best}
		k := slices.IndexFunc(groups, func(g anchorGroup) bool { return g.anchor == p[best] })
		if k < 0 {
			groups = append(groups, anchorGroup{anchor: p[best]})
			k = len(groups) - 1
		}
		groups[k].patterns = append(groups[k].patterns, a)
	}
	return groups
}

// containsAnchored reports whether l contains any of the groups'
// patterns (bytes.Contains of each).
func containsAnchored(l []byte, groups []anchorGroup) bool {
	for _, g := range groups {
		for i := 0; ; {
			j := bytes.IndexByte(l[i:], g.anchor)
			if j < 0 {
				break
			}
			i += j
			for _, p := range g.patterns {
				if start := i - p.at; start >= 0 && start+len(p.pattern) <= len(l) &&
					string(l[start:start+len(p.pattern)]) == string(p.pattern) {
					return true
				}
			}
			i++
		}
	}
	return false
}

// lowerCounted is lowerTrimmed(dst, line) and whether line has no more
// than n words (!moreWordsThan(line, n)); when it has more, the lower
// case is not finished. An ASCII line that fits dst, most of them, is
// counted and lower-cased in one pass, not three (words, ASCII, case).
func lowerCounted(dst []byte, line string, n int) ([]byte, bool) {
	s := strings.TrimLeft(line, "#>*_ ")
	if len(s) > cap(dst)-len(dst) {
		if moreWordsThan(line, n) {
			return dst, false
		}
		return lowerTrimmed(dst, line), true
	}
	// The trimmed head's words ("#", "*", "_" runs) count too.
	words, prev := 0, uint8(1)
	for i := 0; i < len(line)-len(s); i++ {
		sp := wordSpace[line[i]]
		words += int(prev &^ sp)
		prev = sp
	}
	if words > n {
		return dst, false
	}
	start := len(dst)
	words, high := lowerWords(dst[start:start+len(s)], s, words, uint(prev), n)
	if words > n {
		return dst, false
	}
	if high >= utf8.RuneSelf {
		return lowerTrimmed(dst, line), true
	}
	return dst[:start+len(s)], true
}

// lowerWords writes s into out (as long), its ASCII capitals in lower
// case, and counts its words on from words (prev: whether the byte
// before s separates words). It stops, more than n words counted, at
// the end of a block of 16 bytes or of s, and returns the count and the
// bytes of s read OR-ed together (under utf8.RuneSelf for ASCII). The
// count is checked per block, not per byte, and every state is kept in
// a register.
func lowerWords(out []byte, s string, words int, prev uint, n int) (int, uint) {
	out = out[:len(s)]
	high := uint(0)
	i := 0
	for ; words <= n && i+16 <= len(s); i += 16 {
		for j := i; j < i+16; j++ {
			c := s[j]
			sp := uint(wordSpace[c])
			words += int(prev &^ sp)
			prev = sp
			high |= uint(c)
			out[j] = lowerASCII[c]
		}
	}
	for ; words <= n && i < len(s); i++ {
		c := s[i]
		sp := uint(wordSpace[c])
		words += int(prev &^ sp)
		prev = sp
		high |= uint(c)
		out[i] = lowerASCII[c]
	}
	return words, high
}

// lowerASCII maps the ASCII capitals to their lower case and every other
// byte to itself.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// lowerBuffer is the size of the buffers furniture lines are lower-cased
// into on the stack: a copy of every line in lower case on the heap was
// most of what telling furniture cost.
const lowerBuffer = 1024

// lowerTrimmed is strings.ToLower(strings.TrimLeft(line, "#>*_ ")),
// appended to dst, which has room for lowerBuffer bytes: a line whose
// lower case may not fit (a rune's lower case, or the U+FFFD of an
// invalid byte, takes at most three times its bytes) is lower-cased on
// the heap.
func lowerTrimmed(dst []byte, line string) []byte {
	s := strings.TrimLeft(line, "#>*_ ")
	if 3*len(s) > lowerBuffer {
		return append(dst, strings.ToLower(s)...)
	}
	if isASCII(s) {
		n := len(dst)
		dst = slices.Grow(dst, len(s))[:n+len(s)]
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst[n+i] = c
		}
		return dst
	}
	// As strings.ToLower does: each rune mapped by unicode.ToLower (ASCII
	// by its table), an invalid byte written as U+FFFD.
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += size
	}
	return dst
}

// moreWordsThan reports whether s has more than n words (runs of bytes
// other than space, tab and newline). It stops at word n+1: a paragraph
// of prose is not read to its end to tell it is no furniture.
func moreWordsThan[T string | []byte](s T, n int) bool {
	// A word starts where a byte that is no space follows one that is
	// (or the start): counted without a branch on it, which the processor
	// could not predict, a word every few bytes.
	words, prev := 0, uint8(1)
	for i := 0; i < len(s); i++ {
		sp := wordSpace[s[i]]
		words += int(prev &^ sp)
		if words > n {
			return true
		}
		prev = sp
	}
	return false
}

// wordSpace is 1 for the bytes that separate words in moreWordsThan.
var wordSpace = [256]uint8{' ': 1, '\t': 1, '\n': 1}

// StripFurniture returns the lines of Markdown text that carry the story,
// without site furniture and without the link lists of "related" boxes.
func StripFurniture(markdown string) []string {
	return appendStripped(nil, markdown)
}

// appendStripped appends the lines StripFurniture returns to out.
func appendStripped(out []string, markdown string) []string {
	inRelated := false
	for raw := range strings.Lines(markdown) {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if inRelated {
			if mdtext.IsListItem(line) {
				continue
			}
			inRelated = false
		}
		if opensRelatedBox(line) {
			inRelated = true
			continue
		}
		if IsFurniture(line) {
			continue
		}
		out = append(out, line)
	}
	return out
}
