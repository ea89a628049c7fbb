package summary

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/stories"
)

// The readings of a paragraph and a sentence as they were before they
// were made cheaper (trimTeaser searched every marker, IsDateStamp
// lower-cased every word to a new string, a sentence's words were copied
// to their distinct hashes, each sentence had slices of its own): the
// faster ones must give what these give.

func referenceTrimTeaser(p string) string {
	cut := false
	for {
		trimmed := p
		from := tailWords(trimmed, 8)
		for _, e := range teaserEnds {
			if i := teaserCut(trimmed, from, e); i >= 0 {
				trimmed = strings.TrimSpace(trimmed[:i])
				from = tailWords(trimmed, 8)
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
	if i := strings.LastIndexAny(p, ".!?"); i >= 0 {
		if j := i + 1; j == len(p) || p[j] == ' ' || strings.ContainsRune("\"')]”’", rune(p[j])) {
			return strings.TrimSpace(p[:j])
		}
	}
	return p
}

func referenceIsDateStamp(text string) bool {
	n, figure := 0, false
	for w := range strings.FieldsSeq(text) {
		key := referenceStampKey(w)
		if key == "" {
			continue
		}
		if n++; n > 24 || !referenceIsStampWord(key) {
			return false
		}
		figure = figure || strings.ContainsFunc(key, unicode.IsDigit)
	}
	return figure
}

// referenceAbbreviationCandidate and referenceComplete are
// abbreviationCandidate and complete as they were: every rune asked of
// the list of breaks, every sentence trimmed of its closing quotes.
func referenceAbbreviationCandidate(before string) string {
	i := strings.LastIndexFunc(before, func(r rune) bool {
		return r == ' ' || r == '-' || r == '/' || r == '–' || r == '—' || strings.ContainsRune(openers, r)
	})
	if i < 0 {
		return before
	}
	_, size := utf8.DecodeRuneInString(before[i:])
	return before[i+size:]
}

func referenceComplete(s string) bool {
	s = strings.TrimRight(s, "\"')]”’")
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?")
}

// referenceIsStampWord is isStampWord as it was, the labels and the
// calendar looked up apart.
func referenceIsStampWord(w string) bool {
	if stampLabels[w] || stampCalendar[w] {
		return true
	}
	return (w[0] >= '0' && w[0] <= '9' || strings.HasPrefix(w, "gmt") || strings.HasPrefix(w, "utc")) && stampFigure.MatchString(w)
}

func referenceStampKey(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(",.;:|()[]-–—/·•@*", r) }))
}

// sameVector reports whether two sentences have the same words with the
// same counts, in whatever order they hold them.
func sameVector(a, b *sentence) bool {
	type entry struct {
		word  uint64
		count float64
	}
	entries := func(s *sentence) []entry {
		out := make([]entry, len(s.words))
		for i, w := range s.words {
			out[i] = entry{w, s.freq[i]}
		}
		slices.SortFunc(out, func(x, y entry) int { return cmp.Compare(x.word, y.word) })
		return out
	}
	return len(a.words) == len(a.freq) && len(b.words) == len(b.freq) && slices.Equal(entries(a), entries(b))
}

func referenceNewSentence(text string, pos int) *sentence {
	ws := stories.ContentWords(text)
	slices.Sort(ws)
	s := &sentence{text: text, pos: pos}
	s.words, s.freq, s.norm = make([]uint64, 0, len(ws)), make([]float64, 0, len(ws)), 0
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && ws[j] == ws[i] {
			j++
		}
		s.words = append(s.words, ws[i])
		s.freq = append(s.freq, float64(j-i))
		s.norm += float64((j - i) * (j - i))
		i = j
	}
	s.norm = math.Sqrt(s.norm)
	return s
}

// featureCorners are paragraphs at the edges of teasers and date stamps.
var featureCorners = []string{
	"", "…", "...", "[…]", "Read more", "The council met on Tuesday. It voted to close the bridge […]",
	"The council met. It voted on one two three four five six seven eight… Read more",
	"A sentence. Then a cut-off one and Continue reading", "A sentence. Then one cut… Keep reading",
	"word... one two three four five six seven eight nine", "Read the full story", "Rea", "Re", "…x", "[.",
	"Keep reading”", "Published: 09th June 2013", "May 3, 2013 at 7:31 AM ET", "UPDATED: 22:19 GMT",
	"PUBLISHED: 02:31 GMT, 12 March 2013 | UPDATED: 22:19 GMT", "GMT+02:00 Monday", "On May 3, police said",
	"Dé 3 mai 2013", "MAİ 3 2013", "12:41", "Monday", "2012.08.08 27/09/2013 11:25am", "١٢ March 2013",
	"Ⅻ March 2013", strings.Repeat("Monday ", 30) + "2013", "(Published) [12 March 2013]",
	"Published: 12 March 2013 An orderly protest", "PUBLISHED 12 March 2013 Police said", "Modified— 3 May it rained",
	"Édité 3 mai 2013 x", "POSTED\u00a03 May x", "ＰＵＢＬＩＳＨＥＤ 3 May x", "publishedpublished 3 May x",
	"(Updated) 3 May 2013 Police", "Updated:", "UPDATED", "Date 12:41 Time 12:42 text", "Fİrst 3 May x",
	"first-last-time 3 x", "\xffPublished 3 x", "Published\xff 3 x", "AbcdefghijklmnopQ 3 x", "Abcdefghijklmnop 3 x",
	"Monday\u00a0May 3", "Published\t3 May 2013", "MONDAY 3 MAY", "Abcdefghijklmnopq 3", "Abcdefghijklmnop", "Jan",
	"Jan. 5", "May", "May 3", "Mayor 3", "Monday,", "Monday3", "Mondayé 3", "Sept\v3", "Tues\r3", "Thurs\x00 3",
	"Aoraki-Mt. Cook", "D-W.Va. said", "(Calif. x", "“Inc. y", "«Dr. z", "a–Jr. b", "a—St. c", "x/No. 3", "[Gen. x",
	"'Rev. y", "\"Sen. z", "bad\xffJ. Smith", "\xe2\x80Mr. X", "It ended.”", "It ended.’ ", "Why?)", "Done!]", "No end",
	"It ended.\"", "It ended.”’", "", ".", "”", "tab\tin  two  spaces", " lead", "trail ", "a  b", "ctl\x01x", "nb\u00a0sp", "em\u2003sp", "ok — “quotes” é",
}

// referenceStripDateStamp and referenceTailWords are stripDateStamp and
// tailWords as they were: the first word's key lower-cased to a new
// string, every byte's space asked of unicode.IsSpace.
func referenceStripDateStamp(p string) string {
	first, _, _ := strings.Cut(p, " ")
	if !stampOpeners[referenceStampKey(first)] {
		return p
	}
	rest, figure := p, false
	for rest != "" {
		w, after, _ := strings.Cut(rest, " ")
		key := referenceStampKey(w)
		if key != "" && !referenceIsStampWord(key) {
			break
		}
		figure = figure || strings.ContainsFunc(w, unicode.IsDigit)
		rest = after
	}
	if !figure || rest == p {
		return p
	}
	return strings.TrimSpace(rest)
}

func referenceTailWords(s string, n int) int {
	end, words := len(s), 0
	inWord := false
	for end > 0 {
		r, size := rune(s[end-1]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeLastRuneInString(s[:end])
		}
		if unicode.IsSpace(r) {
			inWord = false
		} else if !inWord {
			inWord = true
			if words++; words > n {
				return end
			}
		}
		end -= size
	}
	return 0
}

func TestParagraphReadingsMatchReference(t *testing.T) {
	cases := slices.Clone(featureCorners)
	for _, text := range summaryTexts(t) {
		for raw := range strings.Lines(text) {
			line := strings.TrimSpace(raw)
			cases = append(cases, line, plain(line))
		}
		for _, p := range paragraphs(text) {
			cases = append(cases, p)
			cases = append(cases, sentences(p)...)
		}
	}
	sc := summaryScratches.Get().(*summaryScratch)
	var kept []*sentence // the scratch's sentences, compared again after the scratch has grown
	for n, s := range cases {
		if n%MaxConsidered == 0 {
			for _, got := range kept {
				want := referenceNewSentence(got.text, got.pos)
				if !sameVector(got, want) || got.norm != want.norm {
					t.Errorf("scratch's newSentence(%q) changed since it was made", got.text)
				}
			}
			sc.release()
			sc, kept = summaryScratches.Get().(*summaryScratch), nil
		}
		got := sc.newSentence(s, n)
		kept = append(kept, got)
		if want := referenceNewSentence(s, n); !sameVector(got, want) ||
			got.norm != want.norm || got.pos != n || got.text != s {
			t.Errorf("scratch's newSentence(%q) differs from the reference", s)
		}
		if got, want := trimTeaser(s), referenceTrimTeaser(s); got != want {
			t.Errorf("trimTeaser(%q) = %q, the reference %q", s, got, want)
		}
		if got, want := complete(s), referenceComplete(s); got != want {
			t.Errorf("complete(%q) = %v, the reference %v", s, got, want)
		}
		for i := range len(s) + 1 {
			if i < len(s) && s[i] != '.' && s[i] != '!' && s[i] != '?' && s[i] != ' ' {
				continue
			}
			if got, want := abbreviationCandidate(s[:i]), referenceAbbreviationCandidate(s[:i]); got != want {
				t.Errorf("abbreviationCandidate(%q) = %q, the reference %q", s[:i], got, want)
			}
		}
		if got, want := stripDateStamp(s), referenceStripDateStamp(s); got != want {
			t.Errorf("stripDateStamp(%q) = %q, the reference %q", s, got, want)
		}
		for _, n := range []int{0, 1, 2, 3, 5, 8, 30} {
			if got, want := tailWords(s, n), referenceTailWords(s, n); got != want {
				t.Errorf("tailWords(%q, %d) = %d, the reference %d", s, n, got, want)
			}
		}
		if got, want := plain(s), referencePlain(s); got != want {
			t.Errorf("plain(%q) = %q, the reference %q", s, got, want)
		}
		if got, want := IsDateStamp(s), referenceIsDateStamp(s); got != want {
			t.Errorf("IsDateStamp(%q) = %v, the reference %v", s, got, want)
		}
		for w := range strings.FieldsSeq(s) {
			if got, want := stampKey(w), referenceStampKey(w); got != want {
				t.Errorf("stampKey(%q) = %q, the reference %q", w, got, want)
			}
		}
		got, want := newSentence(s, 3), referenceNewSentence(s, 3)
		if !slices.Equal(got.words, want.words) || !slices.Equal(got.freq, want.freq) || got.norm != want.norm || got.pos != 3 || got.text != s {
			t.Errorf("newSentence(%q) differs from the reference", s)
		}
	}
	if len(cases) < 1000 {
		t.Fatalf("only %d texts compared", len(cases))
	}
}
