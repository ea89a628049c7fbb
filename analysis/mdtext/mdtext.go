// Package mdtext holds the small Markdown reading rules that story
// detection and summaries share, so both read a line the same way.
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
