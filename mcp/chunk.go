package mcp

import (
	"strings"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/tokens"
)

// maxTokenBytes bounds the bytes of one cl100k_base token: a text of n
// tokens is never longer than n × maxTokenBytes, so a part of at most n
// tokens is looked for in that window only.
const maxTokenBytes = 128

// chunk is the longest part of text from offset that holds at most budget
// tokens, ending at a line end when one fits, else at a word end, else at
// a character boundary, and its exact token count. The part is never
// empty while text remains, so repeated calls always progress.
func chunk(c *tokens.Counter, text string, offset, budget int) (part string, n int) {
	rest := text[offset:]
	if n := c.Count(rest); n <= budget {
		return rest, n
	}
	window := rest[:min(len(rest), budget*maxTokenBytes)]
	for _, cuts := range [][]int{cutsAfter(window, "\n"), cutsAfter(window, " "), runeCuts(window)} {
		if end, n, ok := longestFitting(c, window, cuts, budget); ok {
			return window[:end], n
		}
	}
	// Not even one character fits the budget: take one anyway.
	_, size := utf8.DecodeRuneInString(rest)
	return rest[:size], c.Count(rest[:size])
}

// longestFitting binary-searches the cut positions (ascending) for the
// last one whose prefix has at most budget tokens.
func longestFitting(c *tokens.Counter, s string, cuts []int, budget int) (end, n int, ok bool) {
	lo, hi := 0, len(cuts)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if k := c.Count(s[:cuts[mid]]); k <= budget {
			end, n, ok = cuts[mid], k, true
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return end, n, ok
}

// cutsAfter lists the positions just after each sep in s.
func cutsAfter(s, sep string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sep)
		if j < 0 {
			return out
		}
		i += j + len(sep)
		out = append(out, i)
	}
}

// runeCuts lists every character boundary of s after the first.
func runeCuts(s string) []int {
	out := make([]int, 0, len(s))
	for i := range s {
		if i > 0 {
			out = append(out, i)
		}
	}
	return append(out, len(s))
}
