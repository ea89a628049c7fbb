package relevance

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/feedpoller/feedpoller/internal/testpages"
	"github.com/feedpoller/feedpoller/model"
)

// referenceEach is tokenizer.each as it was, before it kept track of
// whether a word is of ASCII letters alone while writing it: each word
// read again for that.
func (tk *tokenizer) referenceEach(text string, fn func(stem []byte)) {
	if !isASCII(text) {
		text = norm.NFKD.String(text)
	}
	tk.word = tk.word[:0]
	afterApostrophe := false
	flush := func() {
		if len(tk.word) == 0 {
			return
		}
		w := tk.word
		if !(afterApostrophe && len(w) == 1 && w[0] == 's') {
			if isLowerASCIIWord(w) {
				if tk.only != nil && !tk.only.mayStemTo(w) {
					w = nil
				} else {
					w = stem(w)
				}
			}
			fn(w)
		}
		tk.word = tk.word[:0]
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				tk.word = append(tk.word, c)
			case 'A' <= c && c <= 'Z':
				tk.word = append(tk.word, c+('a'-'A'))
			case c == '\'':
				flush()
				afterApostrophe = true
			default:
				flush()
				afterApostrophe = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == '\u2019' || r == '\u02bc':
			flush()
			afterApostrophe = true
		case isCharScript(r):
			flush()
			afterApostrophe = false
			tk.word = utf8.AppendRune(tk.word, r)
			flush()
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mc, r):
			tk.word = utf8.AppendRune(tk.word, unicode.ToLower(r))
		default:
			flush()
			afterApostrophe = false
		}
	}
	flush()
}

// TestEachMatchesReference: the stems of real pages, the bench's text and
// words made to catch the corners (digits, other scripts, letters whose
// lower case is ASCII, apostrophes) are those of the reference, with and
// without a profile's prefixes ruling words out.
func TestEachMatchesReference(t *testing.T) {
	texts := []string{"", benchBody(), "a b c x y z of to in go do", "4G 5g x86 A1 1a", "KELVIN \u212Aelvin \u212A",
		"Café naïve São Paulo ÅNGSTRÖM", "最新AI技術 と ไทย", "it's Sudan’s Bob'S o'clock ʼs '", "Ǆ ǅ ǆ ﬁnance ＡＩ",
		"ड्राइवर मैं", "\xff\xfe bad", "scheduling dying lying tying skies ugly early"}
	for name, text := range testpages.Read(t, "../..", testpages.Converted) {
		texts = append(texts, name, text)
	}
	profiles := [][]string{nil, {"schedul", "a", "go", "x", "die"}, {"secur", "databas", "in", "of"}}
	for _, stems := range profiles {
		var only *stemPrefixes
		if stems != nil {
			only = new(stemPrefixes)
			for _, st := range stems {
				only.add(st)
			}
		}
		for _, text := range texts {
			var got, want []string
			tk := tokenizer{only: only}
			tk.each(text, func(st []byte) { got = append(got, string(st)+"|"+strings.Repeat("n", b2i(st == nil))) })
			ref := tokenizer{only: only}
			ref.referenceEach(text, func(st []byte) { want = append(want, string(st)+"|"+strings.Repeat("n", b2i(st == nil))) })
			if !slices.Equal(got, want) {
				t.Errorf("stems of %.40q (profile %v) differ from the reference", text, stems)
			}
		}
	}
}

// TestScoreOfPagesMatchesReference: the scores of real pages, for
// profiles with words of one and two letters among their terms, are
// those of every word stemmed.
func TestScoreOfPagesMatchesReference(t *testing.T) {
	pages := testpages.Read(t, "../..", testpages.Converted)
	profiles := []model.RelevanceProfile{benchProfile(),
		{Keywords: kw("of the", 1.0, "in", 2.0, "a", 1.0, "go", 1.0, "x", 3.0, "it is", 1.0), Exclusions: []string{"an"}},
		{Keywords: kw("do", 1.0, "web site", 2.0, "page", 1.0, "i", 1.0)}}
	for i, p := range profiles {
		s := NewScorer(p)
		for name, text := range pages {
			if got, want := s.Score(name, text), referenceScore(s, name, text); !sameResult(got, want) {
				t.Errorf("profile %d, %s: %v, want %v", i, name, got, want)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestIsASCII: read eight bytes at a time, isASCII answers as reading
// byte by byte does, whatever the length and wherever a byte beyond ASCII
// is.
func TestIsASCII(t *testing.T) {
	for n := range 40 {
		for at := -1; at < n; at++ {
			for _, c := range []byte{0x80, 0xC3, 0xFF} {
				b := []byte(strings.Repeat("a", n))
				if at >= 0 {
					b[at] = c
				}
				want := true
				for _, x := range b {
					want = want && x < utf8.RuneSelf
				}
				if got := isASCII(string(b)); got != want {
					t.Fatalf("isASCII(%q) = %v", b, got)
				}
			}
		}
	}
}
