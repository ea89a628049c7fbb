// Package mdtext holds the small Markdown and text reading rules that
// story detection, summaries and extraction share, so they read a line
// the same way.
package mdtext

import "strings"

// IsListItem reports whether a trimmed line is a Markdown list item
// ("- ", "* ", "+ ", "1. ", "1) ").
func IsListItem(line string) bool {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") || strings.HasPrefix(line, "+ ") {
		return true
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i < len(line)-1 && (line[i] == '.' || line[i] == ')') && line[i+1] == ' '
}

// SkipParens returns the index just after the ")" that closes the "(" at
// s[i] (a link target, which may itself hold parentheses), or len(s).
func SkipParens(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// OneLine is strings.Join(strings.Fields(s), " "): s on one line with
// single spaces. Text that already is (most lines of an article, titles)
// is returned as it is, without a copy.
func OneLine(s string) string {
	clean := s == "" || s[0] != ' ' && s[len(s)-1] != ' '
	for i := 0; clean && i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			clean = s[i+1] != ' '
		case c < ' ', c == 0x85, c == 0xA0, c >= 0xE1 && c <= 0xE3:
			// control characters, and bytes that may belong to a
			// Unicode space: the slow path decides
			clean = false
		}
	}
	if clean {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
