package summary

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
	"github.com/feedpoller/feedpoller/internal/testpages"
)

// countFields and DependsOnEarlier read fewer words than they did (no
// slice of every word of a sentence); on every sentence of realistic news
// and converted real pages they must answer as the straightforward
// readings below do.
func TestWordReadingMatchesReference(t *testing.T) {
	cases := []string{"", " ", "one", " two  words ", "tab\tand\nnewline", "nbsp\u00a0inside", "ideographic\u3000space",
		"bad \xff utf8", "\u0085next line", "é à  ü", "However, it rained.", "In addition to that", "This week it rained.",
		"“They said so,” she said.", "(It was) late", "At the same time, prices fell."}
	for _, text := range summaryTexts(t) {
		for _, p := range paragraphs(text) {
			cases = append(cases, p)
			cases = append(cases, sentences(p)...)
		}
	}
	for _, s := range cases {
		if got, want := countFields(s), len(strings.Fields(s)); got != want {
			t.Errorf("countFields(%.40q) = %d, strings.Fields gives %d", s, got, want)
		}
		if got, want := DependsOnEarlier(s), referenceDependsOnEarlier(s); got != want {
			t.Errorf("DependsOnEarlier(%.40q) = %v, the reference %v", s, got, want)
		}
	}
	if len(cases) < 500 {
		t.Fatalf("only %d sentences compared", len(cases))
	}
}

// summaryTexts are the story set's articles and the extraction tests'
// converted pages, by name.
func summaryTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range storySet(t) {
		out[a.ID] = a.Markdown
	}
	for name, text := range testpages.Read(t, "../..", testpages.Converted) {
		out[name] = text
	}
	return out
}

// referenceDependsOnEarlier is DependsOnEarlier as it was: every word split.
func referenceDependsOnEarlier(sentence string) bool {
	s := strings.TrimLeftFunc(sentence, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(openers, r)
	})
	words := strings.Fields(s)
	if len(words) == 0 {
		return false
	}
	key := func(i int) string {
		if i >= len(words) {
			return ""
		}
		return strings.ToLower(strings.TrimRight(words[i], ",;:"))
	}
	first := key(0)
	comma := strings.HasSuffix(words[0], ",")
	switch {
	case connectives[first], pointers[first]:
		return true
	case connectivesWithComma[first]:
		return comma
	case first == "this" || first == "that":
		return !timeNouns[key(1)]
	}
	if len(words) > 1 {
		two := first + " " + key(1)
		if phraseConnectives[two] || len(words) > 2 && phraseConnectives[two+" "+key(2)] ||
			len(words) > 3 && phraseConnectives[two+" "+key(2)+" "+key(3)] {
			return true
		}
	}
	return false
}

// Summarize stops reading an article once it has its MaxConsidered
// sentences; its summaries must be those of reading every paragraph (the
// computation before that change, below), on short texts and on long
// ones made of many articles.
func TestSummarizeMatchesReference(t *testing.T) {
	texts := summaryTexts(t)
	var long strings.Builder
	n := 0
	for _, a := range storySet(t) {
		long.WriteString(a.Markdown + "\n\n")
		if n++; n%25 == 0 {
			texts[fmt.Sprintf("long-%d", n)] = long.String()
		}
	}
	for name, text := range texts {
		for _, opts := range []Options{{}, {MaxSentences: 1, MaxChars: 120}} {
			if got, want := Summarize(text, opts), referenceSummarize(text, opts); got != want {
				t.Errorf("%s %+v: summary\n%q\nthe reference\n%q", name, opts, got, want)
			}
		}
	}
}

// referenceSummarize is Summarize as it was: every paragraph read.
func referenceSummarize(markdown string, opts Options) string {
	if opts.MaxSentences <= 0 {
		opts.MaxSentences = DefaultMaxSentences
	}
	if opts.MaxChars <= 0 {
		opts.MaxChars = DefaultMaxChars
	}
	paras := paragraphs(markdown)
	if len(paras) == 0 {
		return ""
	}
	var cands []*sentence
	pos := 0
	for _, p := range paras {
		if pos >= MaxConsidered {
			break
		}
		for _, s := range sentences(p) {
			if pos >= MaxConsidered {
				break
			}
			if n := len(strings.Fields(s)); n >= minSentenceWords && n <= maxSentenceWords && complete(s) && !IsDateStamp(s) {
				cands = append(cands, newSentence(s, pos))
			}
			pos++
		}
	}
	var chosen []*sentence
	if len(cands) > 2 && referenceRank(cands) {
		chosen = referencePick(cands, opts.MaxSentences)
	}
	if len(chosen) == 0 {
		return fit(lead(paras[0]), opts)
	}
	texts := make([]string, len(chosen))
	for i, s := range chosen {
		texts[i] = s.text
	}
	return fit(texts, opts)
}

// plain keeps a line whose spaces are already single as it is; on every
// line of the texts it must give what collapsing every line's spaces
// (the computation before that change, below) gave.
func TestPlainMatchesReference(t *testing.T) {
	lines := []string{"", "  two  spaces ", "a\u00a0b", "tab\tin", "*emph*  and `code`", "[link](https://x.example/a b) end ",
		"a cut link](https://x.example/) then", "wow! ![img](x.png) and <b>tag</b>", "snake_case _under_ back\\slash", "plain prose, no marks!"}
	for _, text := range summaryTexts(t) {
		for l := range strings.Lines(text) {
			lines = append(lines, strings.TrimLeft(strings.TrimSpace(l), "> "))
		}
	}
	for _, l := range lines {
		if got, want := plain(l), referencePlain(l); got != want {
			t.Errorf("plain(%.60q) = %.60q, the reference %.60q", l, got, want)
		}
	}
}

// referencePlain is plain as it was: every line's spaces collapsed into
// a new string.
func referencePlain(line string) string {
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
	var out strings.Builder
	out.Grow(b.Len())
	collapseSpace(&out, b.String())
	return out.String()
}

// collapseSpace is strings.Join(strings.Fields(s), " ") in one pass,
// written to b.
func collapseSpace(b *strings.Builder, s string) {
	space := false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
			continue
		}
		if r == utf8.RuneError {
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+size])
			continue
		}
		b.WriteRune(r)
	}
}
