package stories

import (
	"bytes"
	"strings"

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

// boilerplateContainsBytes are boilerplateContains, to search lines
// lower-cased into a buffer.
var boilerplateContainsBytes = func() [][]byte {
	out := make([][]byte, len(boilerplateContains))
	for i, c := range boilerplateContains {
		out[i] = []byte(c)
	}
	return out
}()

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
	l := lowered(strings.TrimLeft(line, "#>*_ "))
	if l.is("…") || l.is("[…]") || l.is("[...]") || l.is("...") {
		return true
	}
	for _, p := range boilerplatePrefixes {
		if l.hasPrefix(p) {
			// "by " and "updated " only as short byline/date lines.
			if (p == "by " || p == "updated " || p == "published " || p == "posted ") && moreWordsThan(l.s, 12) {
				continue
			}
			return true
		}
	}
	// A short ASCII line is lower-cased once, on the stack, for the
	// patterns to be searched for as strings.Contains would.
	var buf [512]byte
	if l.ascii && len(l.s) <= len(buf) {
		low := buf[:len(l.s)]
		for i := 0; i < len(l.s); i++ {
			c := l.s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		for _, c := range boilerplateContainsBytes {
			if bytes.Contains(low, c) {
				return true
			}
		}
		return false
	}
	for _, c := range boilerplateContains {
		if l.contains(c) {
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
	l := lowered(strings.TrimLeft(line, "#>*_ "))
	for _, p := range relatedPrefixes {
		if l.hasPrefix(p) {
			return true
		}
	}
	return false
}

// lowerText is a text as strings.ToLower gives it, compared with
// lower-case patterns. An ASCII text, most lines, is kept as it is and
// compared a byte at a time as its lower case: a copy of every line in
// lower case was most of what telling furniture cost.
type lowerText struct {
	s     string
	ascii bool // s is not lower-cased yet
}

func lowered(s string) lowerText {
	if isASCII(s) {
		return lowerText{s, true}
	}
	return lowerText{strings.ToLower(s), false}
}

func (l lowerText) hasPrefix(p string) bool {
	if !l.ascii {
		return strings.HasPrefix(l.s, p)
	}
	return len(l.s) >= len(p) && equalLowerASCII(l.s[:len(p)], p)
}

func (l lowerText) is(p string) bool { return len(l.s) == len(p) && l.hasPrefix(p) }

func (l lowerText) contains(p string) bool {
	if !l.ascii {
		return strings.Contains(l.s, p)
	}
	for i := 0; i+len(p) <= len(l.s); i++ {
		if equalLowerASCII(l.s[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

// equalLowerASCII reports whether ASCII s in lower case is p.
func equalLowerASCII(s, p string) bool {
	for i := 0; i < len(p); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[i] {
			return false
		}
	}
	return true
}

// moreWordsThan reports whether s has more than n words (runs of bytes
// other than space, tab and newline). It stops at word n+1: a paragraph
// of prose is not read to its end to tell it is no furniture.
func moreWordsThan(s string, n int) bool {
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
