package lexemes

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// equalTexts are real articles and pages: the story set's articles and
// the extraction tests' Markdown and HTML.
func equalTexts(t *testing.T) []string {
	t.Helper()
	var texts []string
	for _, a := range storyArticles(t) {
		texts = append(texts, a.Title, a.Markdown)
	}
	for _, dir := range []string{"fragments", "pages"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "sources", "extract", "testdata", dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no extraction test pages: %v", err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(b))
		}
	}
	return texts
}

// randomText mixes words of real text with accents, combining marks,
// other scripts, punctuation and invalid UTF-8.
func randomText(r *rand.Rand, words []string, n int) string {
	odd := []string{"Café", "Zu\u0308rich", "東京", "ÉCOLE", "\xff", "\xe2\x80", "’", "—", "node.js", "c++",
		"2026", "x1y2", "İstanbul", "ǅemal", "ﬁnance", "Ⅻ", "٣", "\u0301", "a\u0300\u0301", "ß", "ΣΊΣΥΦΟΣ", "\x00"}
	var b strings.Builder
	for range n {
		if r.IntN(6) == 0 {
			b.WriteString(odd[r.IntN(len(odd))])
		} else {
			b.WriteString(words[r.IntN(len(words))])
		}
		b.WriteString([]string{" ", " ", " ", ", ", ".\n\n", "-", "/", ""}[r.IntN(8)])
	}
	return b.String()
}

// TestArticleBinaryAsReference: the pooled document gives the bytes and
// literal of the reference implementation, for real articles and random
// mixes of their words, through a lexicon and without, one document
// after another of different sizes.
func TestArticleBinaryAsReference(t *testing.T) {
	texts := equalTexts(t)
	var words []string
	for _, s := range texts {
		words = append(words, strings.Fields(s)...)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := []int{0, 1, 5, 50, 400, 3000}[r.IntN(6)]
		texts = append(texts, randomText(r, words, n))
	}
	lex := NewLexicon(500) // small: it starts over while the test runs
	for i, body := range texts {
		title := texts[(i*7+3)%len(texts)]
		summary := summaryOf(body)
		if i%5 == 0 {
			summary = ""
		}
		w := []Weight{C, B}[i%2]
		for _, l := range []*Lexicon{nil, lex} {
			parts := articleParts(title, summary, body, w)
			if i%3 == 0 {
				parts = []Part{{title, A, 1 + r.IntN(200)}, {summary, B, r.IntN(500)}, {body, w, 1 + r.IntN(5000)}}
			}
			want := refRead(l, parts)
			if got := l.read(parts); !bytes.Equal(got.binary(), want.binary()) {
				t.Fatalf("text %d (%.60q): binary vector differs from the reference", i, body)
			} else {
				got.release()
			}
			if got, want := l.Document(parts...), want.literal(); got != want {
				t.Fatalf("text %d (%.60q): literal differs from the reference:\n%.200s\n%.200s", i, body, got, want)
			}
		}
	}
}

// TestArticleBinaryLimitsAsReference: documents at PostgreSQL's limits
// (positions past MaxPosition, a lexeme over MaxPositions times, an
// overlong word, a vector filled to its size) as the reference writes
// them, read between ordinary ones.
func TestArticleBinaryLimitsAsReference(t *testing.T) {
	var many strings.Builder
	for i := range MaxPosition + 10 {
		fmt.Fprintf(&many, "w%d ", i)
	}
	many.WriteString("late late")
	var big strings.Builder
	for i := 0; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "%x%s ", i, strings.Repeat("q", 40))
	}
	docs := []string{many.String(), strings.Repeat("kiwi ", 1000),
		strings.Repeat("y", maxLexemeBytes+1) + " short " + strings.Repeat("z", maxLexemeBytes) + " ok",
		big.String(), "an ordinary short text after them",
		// Lexemes alike in their first eight bytes, and prefixes of each other.
		"interconnected interconnection interconnects internationalisation internationally international " +
			"a ab abc abcdefg abcdefgh abcdefghi abcdefgh1 abcdefgh0 abcdefgi abcdefgg 12345678 123456789 1234567 zzzzzzzzz zzzzzzzz", strings.Repeat("Kiwi kiwis KIWI ", 5000)}
	for i, doc := range docs {
		parts := []Part{{"Kiwi", A, 10}, {doc, C, 1 << 30}}
		want := refRead(nil, parts)
		got := (*Lexicon)(nil).read(parts)
		if !bytes.Equal(got.binary(), want.binary()) {
			t.Errorf("document %d: binary vector differs from the reference", i)
		}
		if got.literal() != want.literal() {
			t.Errorf("document %d: literal differs from the reference", i)
		}
		got.release()
	}
}

// FuzzArticleBinary: any text's vector is the reference's.
func FuzzArticleBinary(f *testing.F) {
	for _, s := range []string{"Go 1.26 released", "Zu\u0308rich café ÉCOLE 東京", "\xff\xfe a\x00b", "the of and"} {
		f.Add(s, s+" body", uint16(100))
	}
	f.Fuzz(func(t *testing.T, title, body string, max uint16) {
		parts := []Part{{title, A, int(max)}, {body, C, BodyChars}}
		want := refRead(nil, parts).binary()
		d := (*Lexicon)(nil).read(parts)
		defer d.release()
		if got := d.binary(); !bytes.Equal(got, want) {
			t.Errorf("vector of %q, %q differs from the reference", title, body)
		}
	})
}
