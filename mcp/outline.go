package mcp

import (
	"strings"
	"unicode"
)

// outlineSentences and outlineChars bound what each section shows.
const (
	outlineSentences = 2
	outlineChars     = 320
	// outlineHeadingChars bounds a heading: a line of a megabyte may
	// start with #.
	outlineHeadingChars = 200
)

// outline renders a Markdown article as its heading outline, each
// section's heading followed by the first sentences of its text. Headings
// inside fenced code are not headings; text before the first heading is
// the introduction.
func outline(title, markdown string) string {
	var b strings.Builder
	b.WriteString("# " + title + "\n")
	heading, body := "", []string{}
	flush := func() {
		lead := firstSentences(strings.Join(body, " "), outlineSentences, outlineChars)
		if heading == "" && lead == "" {
			return
		}
		b.WriteString("\n")
		if heading != "" {
			b.WriteString(heading + "\n")
		}
		if lead != "" {
			b.WriteString(lead + "\n")
		}
	}
	walkMarkdown(markdown, func(level int, text, prose string) {
		if level > 0 {
			flush()
			// One level deeper than the title.
			heading, body = strings.Repeat("#", min(level+1, 6))+" "+cutChars(text, outlineHeadingChars), nil
		} else if prose != "" {
			body = append(body, prose)
		}
	})
	flush()
	return b.String()
}

// walkMarkdown calls line for each line of markdown outside fenced code:
// a heading with its level and text, or the prose of any other line ("" for
// tables, images, rules and blank lines).
func walkMarkdown(markdown string, line func(level int, heading, prose string)) {
	fenced := false
	for _, l := range strings.Split(markdown, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if level := headingLevel(trimmed); level > 0 {
			line(level, strings.TrimSpace(strings.TrimLeft(trimmed, "#")), "")
			continue
		}
		line(0, "", plainLine(trimmed))
	}
}

// headingLevel is the level of an ATX heading line, or 0.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(line) || line[n] != ' ' {
		return 0
	}
	return n
}

// plainLine is a line's prose for the outline: list markers, quotes and
// emphasis dropped, tables, images and rules skipped.
func plainLine(line string) string {
	switch {
	case line == "", strings.HasPrefix(line, "|"), strings.HasPrefix(line, "!["), strings.Trim(line, "-*_ ") == "":
		return ""
	}
	line = strings.TrimLeft(line, "> ")
	for _, marker := range []string{"- ", "* ", "+ "} {
		line = strings.TrimPrefix(line, marker)
	}
	return strings.NewReplacer("**", "", "__", "", "`", "").Replace(line)
}

// firstSentences is the first n sentences of text, at most max
// characters (cut at a word, marked with an ellipsis).
func firstSentences(text string, n, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	end := 0
	for count := 0; count < n && end < len(text); count++ {
		next := sentenceEnd(text, end)
		if next < 0 {
			end = len(text)
			break
		}
		end = next
	}
	return cutChars(text[:end], max)
}

// sentenceEnd is the index just after the sentence that starts at from:
// a . ! or ? followed by a space and an upper-case letter or digit, or -1.
func sentenceEnd(text string, from int) int {
	for i := from; i < len(text)-2; i++ {
		if c := text[i]; (c == '.' || c == '!' || c == '?') && text[i+1] == ' ' {
			r := []rune(text[i+2 : min(len(text), i+6)])
			if len(r) > 0 && (unicode.IsUpper(r[0]) || unicode.IsDigit(r[0])) {
				return i + 1
			}
		}
	}
	return -1
}
