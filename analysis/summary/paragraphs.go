package summary

import (
	"strings"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
	"github.com/feedpoller/feedpoller/analysis/stories"
)

// paragraphs returns the prose paragraphs of Markdown text as plain text:
// headings, fenced code, tables, list items, images, HTML blocks, site
// furniture and date stamps are left out (a date stamp that opens a
// paragraph too); links keep their text.
func paragraphs(markdown string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			p := stripDateStamp(trimTeaser(strings.Join(cur, " ")))
			if p != "" && !stories.IsFurniture(p) && !IsDateStamp(p) {
				out = append(out, p)
			}
			cur = cur[:0]
		}
	}
	fenced := false
	for raw := range strings.Lines(markdown) {
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
	flush()
	return out
}

// teaserEnds are what feeds put after a cut-off excerpt.
var teaserEnds = []string{"[…]", "[...]", "…", "...", "Continue reading", "Read more", "Read the full story", "Keep reading"}

// trimTeaser removes a feed excerpt's "read more" tail and the cut-off
// sentence before it, keeping the whole sentences.
func trimTeaser(p string) string {
	cut := false
	for {
		trimmed := p
		for _, e := range teaserEnds {
			if i := strings.LastIndex(trimmed, e); i >= 0 && len(strings.Fields(trimmed[i:])) <= 8 {
				trimmed = strings.TrimSpace(trimmed[:i])
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

// plain removes inline Markdown from a line: images, link targets,
// emphasis and code marks, inline HTML tags.
func plain(line string) string {
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
	return strings.Join(strings.Fields(b.String()), " ")
}
