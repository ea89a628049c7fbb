package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
	"github.com/feedpoller/feedpoller/analysis/stories"
)

// paragraphs returns the prose paragraphs of Markdown text as plain text:
// headings, fenced code, tables, list items, images, HTML blocks and site
// furniture are left out; links keep their text.
func paragraphs(markdown string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			p := trimTeaser(strings.Join(cur, " "))
			if p != "" && !stories.IsFurniture(p) {
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

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "mt": true, "no": true, "vs": true, "etc": true, "inc": true, "ltd": true,
	"co": true, "corp": true, "gen": true, "gov": true, "sen": true, "rep": true, "col": true,
	"lt": true, "sgt": true, "capt": true, "jan": true, "feb": true, "mar": true, "apr": true,
	"jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true,
	"dec": true, "fig": true, "approx": true, "dept": true, "est": true, "u.s": true, "u.k": true,
	"e.g": true, "i.e": true, "a.m": true, "p.m": true, "u.n": true, "e.u": true,
}

// sentences splits a paragraph after '.', '!' or '?' (and closing quotes
// or brackets) when a space and an upper-case letter, digit or opening
// quote follow, unless the word before the period is an abbreviation or
// a single letter (an initial).
func sentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		end := i + 1
		for end < len(p) && strings.ContainsRune("\"')]”’", rune(p[end])) {
			end++
		}
		// Closing quotes may be multi-byte: step over them too.
		for end < len(p) {
			r, size := utf8.DecodeRuneInString(p[end:])
			if r != '”' && r != '’' {
				break
			}
			end += size
		}
		if end >= len(p) || p[end] != ' ' {
			continue
		}
		next, _ := utf8.DecodeRuneInString(p[end+1:])
		if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("\"'“‘(", next)) {
			continue
		}
		if c == '.' {
			w := lastWord(p[start:i])
			if abbreviations[strings.ToLower(w)] || utf8.RuneCountInString(w) == 1 {
				continue
			}
		}
		out = append(out, strings.TrimSpace(p[start:end]))
		start = end + 1
	}
	if rest := strings.TrimSpace(p[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func lastWord(s string) string {
	i := strings.LastIndexAny(s, " (\"“")
	return strings.TrimLeft(s[i+1:], "(\"“")
}
