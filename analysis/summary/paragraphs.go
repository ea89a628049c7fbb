package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
	"github.com/feedpoller/feedpoller/analysis/stories"
)

// paragraphs returns the prose paragraphs of Markdown text as plain text:
// headings, fenced code, tables, list items, images, HTML blocks, site
// furniture and date stamps are left out (a date stamp that opens a
// paragraph too); links keep their text.
func paragraphs(markdown string) []string {
	var out []string
	eachParagraph(markdown, func(p string) bool {
		out = append(out, p)
		return true
	})
	return out
}

// eachParagraph calls yield with the paragraphs of markdown, in order,
// until it returns false: a caller that needs the opening paragraphs
// only does not read the rest of a long article.
func eachParagraph(markdown string, yield func(string) bool) {
	var cur []string
	more := true
	flush := func() {
		if len(cur) > 0 {
			p := stripDateStamp(trimTeaser(strings.Join(cur, " ")))
			if p != "" && !stories.IsFurniture(p) && !IsDateStamp(p) {
				more = yield(p)
			}
			cur = cur[:0]
		}
	}
	fenced := false
	for raw := range strings.Lines(markdown) {
		if !more {
			return
		}
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
			flush()
			continue
		}
		if fenced {
			continue
		}
		switch {
		case line == "":
			flush()
			continue
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "|"), strings.HasPrefix(line, "<"),
			strings.HasPrefix(line, "---"), strings.HasPrefix(line, "***"), strings.HasPrefix(line, "!["),
			mdtext.IsListItem(line):
			flush()
			continue
		}
		line = strings.TrimLeft(line, "> ")
		if t := plain(line); t != "" {
			cur = append(cur, t)
		}
	}
	if more {
		flush()
	}
}

// teaserEnds are what feeds put after a cut-off excerpt.
var teaserEnds = []string{"[…]", "[...]", "…", "...", "Continue reading", "Read more", "Read the full story", "Keep reading"}

// trimTeaser removes a feed excerpt's "read more" tail and the cut-off
// sentence before it, keeping the whole sentences.
func trimTeaser(p string) string {
	// Most paragraphs end with no marker: not searched for each.
	if !mayHoldTeaserEnd(p[tailWords(p, 8):]) {
		return p
	}
	cut := false
	for {
		trimmed := p
		from := tailWords(trimmed, 8)
		for _, e := range teaserEnds {
			if i := teaserCut(trimmed, from, e); i >= 0 {
				trimmed = strings.TrimSpace(trimmed[:i])
				from = tailWords(trimmed, 8)
			}
		}
		if trimmed == p {
			break
		}
		p, cut = trimmed, true
	}
	if !cut {
		return p
	}
	// The text before the marker stops mid-sentence: keep what ends one.
	if i := strings.LastIndexAny(p, ".!?"); i >= 0 {
		if j := i + 1; j == len(p) || p[j] == ' ' || strings.ContainsRune("\"')]”’", rune(p[j])) {
			return strings.TrimSpace(p[:j])
		}
	}
	return p
}

// teaserStarts marks the first bytes of teaserEnds.
var teaserStarts = func() (first [256]bool) {
	for _, e := range teaserEnds {
		if len(e) < 3 {
			panic("summary: a teaser marker shorter than mayHoldTeaserEnd reads")
		}
		first[e[0]] = true
	}
	return first
}()

// mayHoldTeaserEnd reports whether s holds the first three bytes of one
// of teaserEnds, as it does when it holds the marker: when it does not,
// no search for each marker can find one.
func mayHoldTeaserEnd(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if !teaserStarts[s[i]] {
			continue
		}
		for _, e := range teaserEnds {
			if s[i:i+3] == e[:3] {
				return true
			}
		}
	}
	return false
}

// teaserCut is where the last marker of p that at most 8 words follow
// starts, or -1. Such a marker starts inside the last 8 words, from
// tailWords(p, 8) on: only that tail is searched, not the whole paragraph.
func teaserCut(p string, from int, marker string) int {
	if i := strings.LastIndex(p[from:], marker); i >= 0 && len(strings.Fields(p[from+i:])) <= 8 {
		return from + i
	}
	return -1
}

// tailWords is where the word before the last n words of s ends (words
// as strings.Fields splits them; 0 when s has no more than n): any i with
// at most n fields in s[i:] is at or after it.
func tailWords(s string, n int) int {
	// A word starts, read backwards, where a byte that is no space follows
	// one that is (or the end): counted without a branch on it, which the
	// processor could not predict, a word every few bytes.
	end, words := len(s), 0
	prev := uint8(1) // the byte after end is a space
	for end > 0 {
		var space uint8
		size := 1
		if c := s[end-1]; c < utf8.RuneSelf {
			space = asciiSpace[c]
		} else {
			var r rune
			r, size = utf8.DecodeLastRuneInString(s[:end])
			if unicode.IsSpace(r) {
				space = 1
			}
		}
		if words += int(prev &^ space); words > n {
			return end
		}
		prev = space
		end -= size
	}
	return 0
}

// plain removes inline Markdown from a line: images, link targets,
// emphasis and code marks, inline HTML tags.
func plain(line string) string {
	// Without these bytes nothing below applies ("![" and "](" need one
	// of them too): the line is kept as it is.
	switch markup, clean := readLine(line); {
	case !markup && clean:
		return line
	case !markup:
		return OneLine(line)
	}
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '!' && i+1 < len(line) && line[i+1] == '[':
			j := strings.IndexByte(line[i:], ']')
			if j < 0 {
				i = len(line)
				continue
			}
			i += j + 1
			if i < len(line) && line[i] == '(' {
				i = mdtext.SkipParens(line, i)
			}
		case c == ']' && i+1 < len(line) && line[i+1] == '(':
			i = mdtext.SkipParens(line, i+1)
		case c == '[' || c == '*' || c == '`' || c == '\\':
			i++
		case c == '_' && (i == 0 || i+1 == len(line) || line[i-1] == ' ' || line[i+1] == ' '):
			i++
		case c == '<':
			j := strings.IndexByte(line[i:], '>')
			if j < 0 {
				b.WriteByte(c)
				i++
				continue
			}
			i += j + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	// Most lines already have single spaces: they are kept as they are,
	// not copied.
	return OneLine(b.String())
}

// lineBytes classes the bytes for readLine: those plain acts on, the
// control characters, those beyond ASCII and the space, a bit each.
var lineBytes = func() (t [256]uint8) {
	for _, c := range []byte("[]*`\\_<") {
		t[c] = lineMarkup
	}
	for c := range byte(' ') {
		t[c] = lineControl
	}
	for c := utf8.RuneSelf; c < len(t); c++ {
		t[c] = lineHigh
	}
	t[' '] = lineSpace
	return t
}()

const (
	lineMarkup = 1 << iota
	lineControl
	lineHigh
	lineSpace
	lineTwoSpaces
)

// readLine reports whether line holds a byte plain acts on
// (strings.ContainsAny(line, "[]*`\\_<")) and, when it does not, whether
// OneLine returns it as it is: one pass over most lines, not two, and
// without a branch on each byte (the spaces between words came at a
// pace the processor could not predict). A line beyond ASCII is left to
// OneLine's own reading.
func readLine(line string) (markup, clean bool) {
	var seen, prev uint8
	for i := 0; i < len(line); i++ {
		c := lineBytes[line[i]]
		// Two spaces in a row set lineTwoSpaces.
		seen |= c | (prev&c&lineSpace)<<1
		prev = c
	}
	switch {
	case seen&lineMarkup != 0:
		return true, false
	case seen&lineHigh != 0:
		return false, OneLine(line) == line
	}
	return false, seen&(lineControl|lineTwoSpaces) == 0 && (line == "" || line[0] != ' ' && line[len(line)-1] != ' ')
}
