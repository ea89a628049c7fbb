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
	boilerplatePrefixBytes   = asBytes(boilerplatePrefixes)
	boilerplateContainsBytes = asBytes(boilerplateContains)
	relatedPrefixBytes       = asBytes(relatedPrefixes)
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
	if moreWordsThan(line, maxFurnitureWords) {
		return false
	}
	var buf [lowerBuffer]byte
	l := lowerTrimmed(buf[:0], line)
	if string(l) == "…" || string(l) == "[…]" || string(l) == "[...]" || string(l) == "..." {
		return true
	}
	for i, p := range boilerplatePrefixBytes {
		if bytes.HasPrefix(l, p) {
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
	for _, c := range boilerplateContainsBytes {
		if bytes.Contains(l, c) {
			return true
		}
	}
	return false
}

// opensRelatedBox reports whether a line heads a list of other stories.
func opensRelatedBox(line string) bool {
	if moreWordsThan(line, 8) {
		return false
	}
	var buf [lowerBuffer]byte
	l := lowerTrimmed(buf[:0], line)
	for _, p := range relatedPrefixBytes {
		if bytes.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

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
