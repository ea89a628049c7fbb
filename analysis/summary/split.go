package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// Sentences splits plain text (a paragraph; any run of white space counts
// as one space) into sentences, the way summaries and the compact digest
// cut them. A sentence ends at '.', '!' or '?', with the closing quotation
// marks and brackets after it, when a space and an upper-case letter, a
// digit or an opening quotation mark follow, except where the period
// belongs to a word that does not end a sentence:
//
//   - a title before a name: "Dr. Reyes", "the Rev. Larry Kroon",
//     "Aoraki-Mt. Cook", "Const. Tim Fanning";
//   - a word that numbers what follows, before a figure: "No. 3",
//     "Jan. 5", "Fig. 2";
//   - another abbreviation, an initial, or a name with periods inside
//     ("U.S.", "Inc.", "Jr.", "a.m.", "Calif.", "J.", "W.Va."): it ends a
//     sentence only when the next word is one that sentences start with
//     ("The", "He", "But", …) or a quotation opens, so "the U.S. Navy"
//     and "George W. Bush" stay whole and "in the U.S. The navy said" is
//     two sentences.
//
// A question or exclamation closed by a quotation mark and followed by a
// short attribution ("“Why?” Reyes asked.") is one sentence. A period
// with no space after it ("6.8", "1.24.1", "Node.js") never ends one.
func Sentences(text string) []string {
	return sentences(OneLine(text))
}

// FirstSentence is Sentences(text)[0] ("" for text without words),
// without splitting the rest.
func FirstSentence(text string) string {
	first := ""
	splitSentences(OneLine(text), func(s string) bool {
		first = s
		return false
	})
	return first
}

// OneLine puts text on one line with single spaces, as Sentences reads
// it. Text that already is (titles, summaries) is returned as it is.
func OneLine(s string) string { return mdtext.OneLine(s) }

// closers may follow an end mark and belong to its sentence; openers may
// start the next sentence.
const (
	closers = "\"')]”’»"
	openers = "\"'“‘(«["
	quotes  = "\"'“‘«"
)

// sentences is Sentences over text whose spaces are single ' '.
func sentences(p string) []string {
	var out []string
	splitSentences(p, func(s string) bool {
		out = append(out, s)
		return true
	})
	return out
}

// splitSentences hands the sentences of p (spaces single ' ') to yield,
// in order, until it returns false.
func splitSentences(p string, yield func(string) bool) {
	start := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		end := i + 1
		for end < len(p) {
			r, size := utf8.DecodeRuneInString(p[end:])
			if !strings.ContainsRune(closers, r) {
				break
			}
			end += size
		}
		if end >= len(p) || p[end] != ' ' {
			continue
		}
		next := p[end+1:]
		r, _ := utf8.DecodeRuneInString(next)
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) && !strings.ContainsRune(openers, r) {
			continue
		}
		if !endsSentence(p[start:i], c, end > i+1, next) {
			continue
		}
		if !yield(strings.TrimSpace(p[start:end])) {
			return
		}
		start = end + 1
		i = end
	}
	if rest := strings.TrimSpace(p[start:]); rest != "" {
		yield(rest)
	}
}

// endsSentence decides an end mark followed by a space and a capital,
// digit or opening quotation mark: before is the sentence so far (without
// the mark), closed whether quotation marks or brackets closed after it,
// next the text after the space.
func endsSentence(before string, mark byte, closed bool, next string) bool {
	if mark != '.' {
		return !(closed && attribution(next))
	}
	if closed {
		// `… in the U.S.” The` and `“… Inc.” He`: the quotation ends
		// with the sentence.
		return true
	}
	w := abbreviationCandidate(before)
	low := strings.ToLower(w)
	nw, _, _ := strings.Cut(next, " ")
	nextIsFigure := strings.ContainsAny(nw, "0123456789")
	switch {
	case titles[low]:
		return false
	case numbering[low] || months[low]:
		if nextIsFigure {
			return false
		}
		return !months[low] || startsSentence(next)
	case ambiguous[low], isInitial(w), hasInnerPeriods(w):
		return startsSentence(next)
	}
	return true
}

// abbreviationCandidate is the word before a period, as abbreviations are
// looked up: after the last space, opening mark, hyphen or slash
// ("Aoraki-Mt" → "Mt", "D-W.Va" → "W.Va", "(Calif" → "Calif").
func abbreviationCandidate(before string) string {
	// The ASCII bytes that end the word by a table; a rune beyond ASCII
	// as before, by its list.
	for i := len(before); i > 0; {
		if c := before[i-1]; c < utf8.RuneSelf {
			if wordBreaks[c] {
				return before[i:]
			}
			i--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(before[:i])
		if r == '–' || r == '—' || strings.ContainsRune(openers, r) {
			return before[i:]
		}
		i -= size
	}
	return before
}

// wordBreaks are the ASCII bytes abbreviationCandidate looks back to: a
// space, a hyphen, a slash and the ASCII opening marks.
var wordBreaks = func() (t [utf8.RuneSelf]bool) {
	for _, c := range []byte(" -/") {
		t[c] = true
	}
	for _, r := range openers {
		if r < utf8.RuneSelf {
			t[r] = true
		}
	}
	return t
}()

// isInitial reports a single letter: "J. Smith", "George W. Bush".
func isInitial(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	return size == len(w) && unicode.IsLetter(r)
}

// hasInnerPeriods reports letters with periods between them, each part one
// or two letters: "U.S", "a.m", "Ph.D", "W.Va", "e.g".
func hasInnerPeriods(w string) bool {
	if !strings.Contains(w, ".") {
		return false
	}
	for part := range strings.SplitSeq(w, ".") {
		n := utf8.RuneCountInString(part)
		if n == 0 || n > 2 || strings.IndexFunc(part, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			return false
		}
	}
	return true
}

// startsSentence reports whether text opens as sentences usually do after
// an abbreviation that could also end one: with a quotation or a word of
// sentenceStarters. Names ("Navy", "Bush"), titles ("Rep.") and brackets
// ("Inc. (EYP)") do not.
func startsSentence(text string) bool {
	r, _ := utf8.DecodeRuneInString(text)
	if strings.ContainsRune(quotes, r) {
		return true
	}
	w, _, _ := strings.Cut(text, " ")
	return sentenceStarters[strings.TrimRight(w, ",;:")]
}

// attribution reports text that opens with a short attribution ending a
// sentence, its verb among the first three words or the last: "Reyes
// asked.", "said the mayor.", "Colts interim coach Bruce Arians asked.".
func attribution(text string) bool {
	end := strings.IndexAny(text, ".!?")
	if end < 0 {
		return false
	}
	words := strings.Fields(text[:end])
	if len(words) > 8 {
		return false
	}
	for i, w := range words {
		if (i < 3 || i == len(words)-1) && speechVerbs[strings.ToLower(strings.TrimRight(w, ","))] {
			return true
		}
	}
	return false
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(words) {
		m[w] = true
	}
	return m
}

// titles stand before a name and never end a sentence (lower case).
var titles = set(`mr mrs ms messrs mme mlle dr prof rev hon fr gen lt col maj capt cmdr adm brig sgt cpl pvt
	gov sen rep pres supt insp det dep dist atty const mt ft sgt`)

// numbering abbreviations stand before a figure: "No. 3", "Fig. 2", "pp. 10".
var numbering = set(`no nos vol fig figs art ch sec pp op`)

// months abbreviated: before a figure they do not end a sentence ("Jan.
// 5"); elsewhere they are like the ambiguous abbreviations.
var months = set(`jan feb mar apr jun jul aug sep sept oct nov dec`)

// ambiguous abbreviations end a sentence only before a word of
// sentenceStarters: companies, suffixes of names, streets, US states.
var ambiguous = set(`inc ltd co corp llc plc bros jr sr st ave blvd rd etc al vs approx est dept univ assn govt
	intl natl ala ariz ark calif colo conn del fla ga ill ind kan kans ky la md mass mich minn miss mo mont neb
	nev okla ore pa tenn tex vt va wash wis wyo`)

// sentenceStarters are words that commonly open a sentence and rarely
// follow an abbreviation inside one.
var sentenceStarters = set(`The A An This That These Those There Here It Its It's He His She Her They Their We
	Our I You Your My In On At For From With By To As After Before When While If But And Or So Yet Since
	Although Though However Meanwhile Now Then Also Still Some Many Most All No Not One Both Each Every Other
	Another What Who Why How Where Which Earlier Later Today Yesterday Last`)

// speechVerbs make a short clause after a quoted question an attribution.
var speechVerbs = set(`said says asked asks added adds told tells wrote writes replied replies recalled explained
	insisted continued shouted cried wondered noted tweeted posted`)
