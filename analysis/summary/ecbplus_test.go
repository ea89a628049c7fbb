package summary

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/feedpoller/feedpoller/internal/ecbplus"
)

// TestECBPlusSummaries measures summaries and sentence splitting on real
// news: the ECB+ corpus (public, CC BY 3.0: the ECB+ folder of the
// cltl/ECB-parser repository, tokenised XML with its own sentence
// boundaries). It runs only when FEEDPOLLER_ECBPLUS_DIR names that folder;
// the corpus is not part of this repository. See docs/digest.md for the
// figures.
//
//	FEEDPOLLER_ECBPLUS_DIR=/path/to/ECB+ go test -run ECBPlus -v ./analysis/summary/
func TestECBPlusSummaries(t *testing.T) {
	dir := os.Getenv("FEEDPOLLER_ECBPLUS_DIR")
	if dir == "" {
		t.Skip("FEEDPOLLER_ECBPLUS_DIR is not set: the ECB+ corpus is not part of the repository")
	}
	docs := loadECBPlus(t, dir)
	// Topics 36–45 are the grouping benchmark's test split (issue 22):
	// reported apart, so that what was seen while writing the rules can
	// be told from what was not.
	var st, dev, held ecbStats
	for _, d := range docs {
		st.add(t, d)
		if d.topic <= 35 {
			dev.add(t, d)
		} else {
			held.add(t, d)
		}
	}
	for _, part := range []struct {
		name string
		st   *ecbStats
	}{{"topics 1–35", &dev}, {"topics 36–45", &held}, {"all", &st}} {
		part.st.log(t, part.name)
	}
	p, r := st.precision(), st.recall()
	for _, ex := range st.examples {
		t.Log(ex)
	}
	// What is left is the corpus's own: sentences its tokeniser split
	// after a title ("the Rev. | Larry Kroon") or never ended.
	if st.empty > 0 || st.dateOnly > 0 || st.dependent > 0 {
		t.Errorf("empty summaries %d, date-only %d, dependent openings %d: want none", st.empty, st.dateOnly, st.dependent)
	}
	if st.abbrevFirst*100 > st.summaries || st.abbrevSplits > 2 {
		t.Errorf("quotes cut inside a sentence %d of %d, splits after an abbreviation %d: want under 1 %% and at most 2",
			st.abbrevFirst, st.summaries, st.abbrevSplits)
	}
	if p < 0.98 || r < 0.96 {
		t.Errorf("boundary precision %.4f, recall %.4f; want at least 0.98 and 0.96", p, r)
	}
}

func (st *ecbStats) precision() float64 { return float64(st.boundHit) / float64(st.boundSplit) }
func (st *ecbStats) recall() float64    { return float64(st.boundHit) / float64(st.boundGold) }

func (st *ecbStats) log(t *testing.T, name string) {
	t.Helper()
	t.Logf("%s: %d articles with a body: %d empty summaries, %d date-only, %d opening with a dependent sentence, %d opening with a date stamp",
		name, st.withBody, st.empty, st.dateOnly, st.dependent, st.datePrefix)
	t.Logf("%s: first sentence of the summary (the compact digest's quote) cut inside a sentence of the corpus: %d of %d (%d cut by the compact digest's former rule)",
		name, st.abbrevFirst, st.summaries, st.oldAbbrevFirst)
	t.Logf("%s: sentence boundaries against the corpus's own: precision %.4f, recall %.4f (%d found, %d right, %d in the corpus); %d splits after an abbreviation or initial",
		name, st.precision(), st.recall(), st.boundSplit, st.boundHit, st.boundGold, st.abbrevSplits)
}

type ecbStats struct {
	summaries, empty, dateOnly, dependent, datePrefix, abbrevFirst int
	oldAbbrevFirst, withBody                                       int
	boundGold, boundSplit, boundHit, abbrevSplits                  int
	examples                                                       []string
}

func (st *ecbStats) example(format string, args ...any) {
	if len(st.examples) < 40 {
		st.examples = append(st.examples, fmt.Sprintf(format, args...))
	}
}

func (st *ecbStats) add(t *testing.T, d ecbDoc) {
	t.Helper()
	if len(d.body) > 0 {
		st.withBody++
	}
	s := Summarize(d.markdown(), Options{})
	if s == "" {
		if len(d.body) == 0 {
			return // a headline alone: nothing to summarise
		}
		st.empty++
		st.example("%s: empty summary", d.name)
		return
	}
	st.summaries++
	if judgeDateOnly(s) {
		st.dateOnly++
		st.example("%s: date only: %q", d.name, s)
	}
	if judgeDependent(s) && !d.opensWith(sentences(s)[0]) {
		st.dependent++
		st.example("%s: dependent opening: %.100q", d.name, s)
	}
	if judgeDatePrefix(s) {
		st.datePrefix++
		st.example("%s: opens with a date stamp: %.100q", d.name, s)
	}
	if first := oldFirstSentence(s); first != s && d.cutInside(s, first) {
		st.oldAbbrevFirst++
	}
	if first := sentences(s)[0]; first != s && d.cutInside(s, first) {
		st.abbrevFirst++
		st.example("%s: quote cut inside a sentence: %q", d.name, first)
	}
	for _, para := range d.body {
		gold := map[int]bool{}
		n := 0
		for i, sent := range para[:len(para)-1] {
			n += len(sent)
			if i > 0 {
				n++
			}
			gold[n] = true
		}
		text := strings.Join(para, " ")
		got := sentences(text)
		st.boundGold += len(gold)
		n = 0
		for i, sent := range got[:len(got)-1] {
			n += len(sent)
			if i > 0 {
				n++
			}
			st.boundSplit++
			if gold[n] {
				st.boundHit++
			} else if endsOnAbbreviation(sent) {
				st.abbrevSplits++
				st.example("%s: split after an abbreviation: %q | %.40q", d.name, tail(sent, 50), got[i+1])
			}
		}
	}
}

// oldFirstSentence is how the compact digest cut a summary's first
// sentence before it used the package's splitter: at the first end mark
// and space after the 20th byte.
func oldFirstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' && i > 20 {
			return s[:i+1]
		}
	}
	return s
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// The judges below are the measurement's own, written apart from the
// package's rules: a reader's view of what went wrong.

var dateStampWord = regexp.MustCompile(`(?i)^(published|posted|updated|first|last|edited|time|on|at|am|pm|a\.m\.|p\.m\.|gmt|utc|est|edt|et|ist|pst|pdt|cst|cdt|bst|cet|cest|(mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|sat|sun|jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?|\d+(st|nd|rd|th)?|[\d:./+-]+)$`)

// judgeDateOnly: nothing but date words, figures and punctuation.
func judgeDateOnly(s string) bool {
	words := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",:|()–—", r) })
	for _, w := range words {
		if !dateStampWord.MatchString(strings.Trim(w, ".")) && strings.Trim(w, ".-/") != "" {
			return false
		}
	}
	return true
}

var datePrefix = regexp.MustCompile(`(?i)^(published|posted|updated|first published|last updated)\b`)

func judgeDatePrefix(s string) bool { return datePrefix.MatchString(s) }

var dependentStart = regexp.MustCompile(`^["“'‘]?(?i:however|but|and|or|so|yet|now|then|also|still|meanwhile|moreover|furthermore|instead|thus|therefore|besides|nevertheless|nonetheless|additionally|consequently|hence|accordingly|subsequently|afterwards?|otherwise|similarly|likewise|again|indeed|finally|plus|he|she|it|they|his|her|its|their|them|him|those|these|that|such|in addition|as a result|on the other hand|even so|after that|by contrast|in contrast|for example|for instance|in turn|the latter|the former)\b`)

// judgeDependent: the summary opens with a connective or a pronoun that
// points back at something the reader has not seen.
func judgeDependent(s string) bool {
	return dependentStart.MatchString(s) && !strings.HasPrefix(strings.ToLower(strings.TrimLeft(s, "\"“'‘")), "it's ") ||
		regexp.MustCompile(`^(?i:this)\b`).MatchString(s) && !regexp.MustCompile(`^(?i:this) (year|week|month|morning|afternoon|evening|weekend|season|summer|winter|spring|autumn|fall)\b`).MatchString(s)
}

var abbrevEnd = regexp.MustCompile(`(^|[\s(-])(U\.S|U\.K|U\.N|D\.C|[A-Z]|[A-Z]\.[A-Z]|Mr|Mrs|Ms|Dr|Prof|Sgt|Gov|Sen|Rep|Lt|Capt|Gen|Col|Mt|St|No|Rev|Jan|Feb|Aug|Sept?|Oct|Nov|Dec|Calif|Fla|Inc|Corp|Ltd|Jr|Sr|Blvd|a\.m|p\.m|Const)\.["”’']?$`)

// endsOnAbbreviation: the text ends on a period that belongs to an
// abbreviation or an initial. "U.S." ends sentences too; the measure
// counts it as wrong only where the corpus did not end the sentence.
func endsOnAbbreviation(s string) bool { return abbrevEnd.MatchString(s) }

// ecbDoc is one ECB+ document as a feed would carry it: a title, then
// the short lines after it (datelines, standfirsts) as paragraphs of
// their own, then the body three sentences a paragraph.
type ecbDoc struct {
	name  string
	topic int
	title string
	lines []string
	body  [][]string
}

// cutInside reports whether first, the start of summary s, ends inside
// one of the corpus's sentences: the summary's text goes on with a word of
// that sentence.
func (d ecbDoc) cutInside(s, first string) bool {
	next, _, _ := strings.Cut(strings.TrimSpace(s[len(first):]), " ")
	probe := first + " " + next
	for _, line := range d.lines {
		if strings.Contains(line, probe) {
			return true
		}
	}
	for _, p := range d.body {
		for _, sent := range p {
			if strings.Contains(sent, probe) {
				return true
			}
		}
	}
	return false
}

// opensWith reports whether the article's prose starts with first: only
// date-only lines come before it.
func (d ecbDoc) opensWith(first string) bool {
	md := d.markdown()
	i := strings.Index(md, first)
	if i < 0 {
		return false
	}
	for line := range strings.SplitSeq(md[:i], "\n") {
		if strings.TrimSpace(line) != "" && !judgeDateOnly(line) {
			return false
		}
	}
	return true
}

func (d ecbDoc) markdown() string {
	var parts []string
	parts = append(parts, d.lines...)
	for _, p := range d.body {
		parts = append(parts, strings.Join(p, " "))
	}
	return strings.Join(parts, "\n\n")
}

func loadECBPlus(t *testing.T, dir string) []ecbDoc {
	t.Helper()
	var docs []ecbDoc
	err := ecbplus.Walk(dir, func(e ecbplus.Doc) error {
		d := ecbToDoc(e.Name, e.Sentences)
		d.topic = e.Topic
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(docs, func(a, b ecbDoc) int { return strings.Compare(a.name, b.name) })
	return docs
}

func ecbToDoc(name string, sents [][]string) ecbDoc {
	d := ecbDoc{name: name}
	if len(sents) > 0 && len(sents[0]) > 0 && strings.HasPrefix(sents[0][0], "http") {
		sents = sents[1:]
	}
	var text []string
	open := true
	for _, s := range sents {
		t := detok(s, &open)
		// The corpus sometimes gives a sentence's closing quotation
		// mark to the next sentence.
		if rest, ok := strings.CutPrefix(t, "”"); ok && len(text) > 0 {
			text[len(text)-1] += "”"
			t = strings.TrimSpace(rest)
		}
		if t != "" {
			text = append(text, t)
		}
	}
	if len(text) == 0 {
		return d
	}
	d.title, text = text[0], text[1:]
	// Short lines right after the headline (datelines, bylines) stand
	// alone, as a page shows them.
	for len(text) > 0 && len(d.lines) < 3 && len(strings.Fields(text[0])) <= 12 && len(d.body) == 0 {
		d.lines, text = append(d.lines, text[0]), text[1:]
	}
	for i := 0; i < len(text); i += 3 {
		d.body = append(d.body, text[i:min(i+3, len(text))])
	}
	return d
}

// detok joins tokens as they were written, with typographic quotation
// marks. A plain '"' token opens a quotation or closes one: the marks
// alternate within an article (open tells which comes next).
func detok(toks []string, open *bool) string {
	var b strings.Builder
	prev := ""
	for i, tk := range toks {
		switch tk {
		case "``":
			tk = "“"
		case "''":
			tk = "”"
		case `"`:
			// After a sentence's or clause's end mark a quotation closes;
			// elsewhere the marks alternate.
			if i > 0 && strings.Contains(".,?!…", prev) && prev != "" {
				*open = false
			}
			if *open {
				tk = "“"
			} else {
				tk = "”"
			}
			*open = !*open
		}
		if i > 0 && !noSpaceBefore(toks, i, tk) && prev != "(" && prev != "$" && prev != "“" {
			b.WriteByte(' ')
		}
		b.WriteString(tk)
		prev = tk
	}
	return b.String()
}

func noSpaceBefore(toks []string, i int, tk string) bool {
	switch tk {
	case ".", ",", ":", ";", "!", "?", ")", "'s", "n't", "%", "'re", "'ve", "'ll", "'d", "'m", "”":
		return true
	}
	digit := func(s string, at int) bool { return s != "" && s[at] >= '0' && s[at] <= '9' }
	if i >= 2 && tk != "" && digit(tk, 0) && toks[i-2] != "" && digit(toks[i-2], len(toks[i-2])-1) {
		switch toks[i-1] {
		case ".", ":":
			return true
		case ",": // 30,000 but not "May 2, 2013"
			return len(tk) == 3
		}
	}
	return false
}
