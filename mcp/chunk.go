package mcp

import (
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/tokens"
)

// counter counts tokens: *tokens.Counter, or a test's wrapper that
// measures the work.
type counter interface {
	Count(s string) int
	Cuts(s string, budget int) []tokens.Cut
}

// maxPartBytes bounds one part of a text, whatever max_tokens: counting
// is linear in what it reads, but a run of one letter costs about a
// microsecond a byte to merge, so a part is looked for in this many bytes
// at most (about 30 000 tokens of prose).
const maxPartBytes = 128 << 10

// chunk is the longest part of text from offset that holds at most budget
// tokens, ending at a line end when one fits, else at a word end, else
// between two of the tokeniser's pieces, and its exact token count. Only
// the part is counted, never the rest of the text. The part is never
// empty while text remains, so repeated calls always progress.
func chunk(c counter, text string, offset, budget int) (part string, n int) {
	rest := text[offset:]
	if rest == "" {
		return "", 0
	}
	window := rest[:runeFloor(rest, maxPartBytes)]
	cuts := c.Cuts(window, budget)
	if len(cuts) > 0 {
		if last := cuts[len(cuts)-1]; last.End == len(rest) {
			return rest, last.Tokens
		}
		cut := bestCut(window, cuts)
		return window[:cut.End], cut.Tokens
	}
	// Not one piece fits: a token is at least a byte, so budget bytes fit.
	end := runeFloor(window, budget)
	if end == 0 {
		_, end = utf8.DecodeRuneInString(rest)
	}
	return rest[:end], c.Count(rest[:end])
}

// bestCut is the last cut at a line end, else the last at a word end,
// else the last.
func bestCut(s string, cuts []tokens.Cut) tokens.Cut {
	word := -1
	for i := len(cuts) - 1; i >= 0; i-- {
		end := cuts[i].End
		if s[end-1] == '\n' {
			return cuts[i]
		}
		if word < 0 && (s[end-1] == ' ' || end < len(s) && s[end] == ' ') {
			word = i
		}
	}
	if word >= 0 {
		return cuts[word]
	}
	return cuts[len(cuts)-1]
}

// runeFloor is the largest character boundary of s at most n.
func runeFloor(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
