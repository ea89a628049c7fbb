package summary

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

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
		if n++; n > 24 || !isStampWord(key) {
			return false
		}
		figure = figure || strings.ContainsFunc(key, unicode.IsDigit)
	}
	return figure
}

func referenceStampKey(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(",.;:|()[]-–—/·•@*", r) }))
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
				if !slices.Equal(got.words, want.words) || !slices.Equal(got.freq, want.freq) || got.norm != want.norm {
					t.Errorf("scratch's newSentence(%q) changed since it was made", got.text)
				}
			}
			sc.release()
			sc, kept = summaryScratches.Get().(*summaryScratch), nil
		}
		got := sc.newSentence(s, n)
		kept = append(kept, got)
		if want := referenceNewSentence(s, n); !slices.Equal(got.words, want.words) || !slices.Equal(got.freq, want.freq) ||
			got.norm != want.norm || got.pos != n || got.text != s {
			t.Errorf("scratch's newSentence(%q) differs from the reference", s)
		}
		if got, want := trimTeaser(s), referenceTrimTeaser(s); got != want {
			t.Errorf("trimTeaser(%q) = %q, the reference %q", s, got, want)
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
