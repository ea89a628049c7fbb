// Package mdtext holds the small Markdown and text reading rules that
// story detection, summaries and extraction share, so they read a line
// the same way.
package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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
	for i := 0; clean && i < len(s); {
		switch c := s[i]; {
		case c == ' ':
			clean = s[i+1] != ' '
		case c < ' ':
			// control characters: the slow path decides
			clean = false
		case c >= utf8.RuneSelf:
			// Only a Unicode space needs the slow path: typographic
			// quotes, dashes and accented letters do not.
			r, size := utf8.DecodeRuneInString(s[i:])
			clean = !unicode.IsSpace(r)
			i += size
			continue
		}
		i++
	}
	if clean {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
