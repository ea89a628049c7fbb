package lexemes

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestWordsSplitAndFold(t *testing.T) {
	cases := map[string][]string{
		"Go 1.26 was RELEASED":               {"go", "1", "26", "was", "released"},
		"state-of-the-art node.js":           {"state", "of", "the", "art", "node", "js"},
		"https://zoo.example.org/a_b?q=1":    {"https", "zoo", "example", "org", "a", "b", "q", "1"},
		"Zürich, São Paulo, ÉCOLE":           {"zurich", "sao", "paulo", "ecole"},
		"Zu\u0308rich (a decomposed accent)": {"zurich", "a", "decomposed", "accent"},
		"O'Reilly’s c++ — 東京":                {"o", "reilly", "s", "c", "東京"},
		"  ...  ":                            nil,
	}
	for in, want := range cases {
		if got := Words(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLexemeStemsAndDropsStopWords(t *testing.T) {
	cases := map[string]string{"Released": "releas", "releases": "releas", "the": "", "Über": "uber",
		"2026": "2026", "ok": "ok", "happiness": "happi"}
	for in, want := range cases {
		if got := Lexeme(in); got != want {
			t.Errorf("Lexeme(%q) = %q, want %q", in, got, want)
		}
	}
	if p, s := PrefixOf("Running"); p != "running" || s != "run" {
		t.Errorf("PrefixOf(Running) = %q, %q; want running, run", p, s)
	}
	if p, s := PrefixOf("releas"); p != "releas" || s != "relea" {
		t.Errorf("PrefixOf(releas) = %q, %q", p, s)
	}
	if p, s := PrefixOf("go"); p != "go" || s != "" {
		t.Errorf("PrefixOf(go) = %q, %q; want go and no other stem", p, s)
	}
}

// TestArticleVector: positions count every word from the title on, stop
// words included; each part has its weight (D, the default, unwritten).
func TestArticleVector(t *testing.T) {
	got := Article("Go 1.26 released", "The release notes", "Releasing the notes now", C)
	want := `'go':1A '1':2A '26':3A 'releas':4A,6B,8C 'note':7B,10C`
	if got != want {
		t.Errorf("Article = %s\nwant      %s", got, want)
	}
	if got := Article("", "", "A summary as the body", B); got != `'summari':2B 'bodi':5B` {
		t.Errorf("a body weighted B: %s", got)
	}
	if got := Article("", "", "", C); got != "" {
		t.Errorf("no text: %q, want the empty vector", got)
	}
	if got := Document(Part{"word", 0, 10}); got != `'word':1` {
		t.Errorf("weight D: %s", got)
	}
}

// TestDocumentLimits: the characters of each part indexed, and
// PostgreSQL's limits of a tsvector: positions stop at MaxPosition (the
// first word there keeps it), a lexeme keeps MaxPositions positions, an
// overlong word is left out, and the vector stays under 1 MB.
func TestDocumentLimits(t *testing.T) {
	title := strings.Repeat("é", TitleChars-1) + " tail"
	if got := Article(title, "", "", C); strings.Contains(got, "tail") {
		t.Errorf("a word past the title's %d characters was indexed: …%s", TitleChars, got[len(got)-20:])
	}
	if got := Article(strings.Repeat("x", TitleChars-5)+" tail", "", "", C); !strings.Contains(got, "'tail':2A") {
		t.Errorf("a word within the title's characters was not indexed: …%s", got[len(got)-20:])
	}

	var b strings.Builder
	for i := range MaxPosition + 10 {
		fmt.Fprintf(&b, "w%d ", i)
	}
	b.WriteString("late late")
	got := Document(Part{b.String(), C, 1 << 30})
	for _, want := range []string{fmt.Sprintf("'w%d':%dC ", MaxPosition-1, MaxPosition),
		fmt.Sprintf("'w%d':%dC ", MaxPosition+1, MaxPosition), "'late':16383C"} {
		if !strings.Contains(got+" ", want) {
			t.Errorf("past the last position: no %s", want)
		}
	}

	got = Document(Part{strings.Repeat("kiwi ", 1000), C, 1 << 30})
	if n := strings.Count(got, ","); n != MaxPositions-1 {
		t.Errorf("a word 1 000 times: %d positions kept, want %d", n+1, MaxPositions)
	}
	if got := Document(Part{strings.Repeat("y", maxLexemeBytes+1) + " short", C, 1 << 30}); got != `'short':2C` {
		t.Errorf("an overlong word: %.40s…", got)
	}

	b.Reset()
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "%x%s ", i, strings.Repeat("q", 40))
	}
	if got := Document(Part{b.String(), C, 1 << 30}); len(got) > 1<<20+1<<19 || !strings.HasPrefix(got, "'0qqq") {
		t.Errorf("3 MB of different words: a %d-byte vector", len(got))
	}
}

// BenchmarkArticle: an article of 30 KB on its own, and articles of
// 2 KB through a lexicon that has read others (as the store's has).
func BenchmarkArticle(b *testing.B) {
	words := strings.Fields(`The committee released its annual report on Tuesday, noting that the
		city's transport network carried more passengers than in any year since records began.
		Officials said investment in new lines, longer trains and state-of-the-art signalling at
		https://transport.example.org/plans had paid off; critics replied that fares rose faster.
		Engineers, councillors, commuters and economists debated whether prices, wages, housing,
		congestion and emissions would follow the ridership figures published this morning.`)
	text := func(size, seed int) string {
		var body strings.Builder
		for i := seed; body.Len() < size; i++ {
			body.WriteString(words[i*7%len(words)])
			body.WriteByte(' ')
		}
		return body.String()
	}
	long := text(30000, 0)
	b.Run("30KB", func(b *testing.B) {
		b.SetBytes(int64(len(long)))
		for b.Loop() {
			Article("Transport report: record year", "A summary of the report.", long, C)
		}
	})
	short := make([]string, 20)
	for i := range short {
		short[i] = text(2000, i)
	}
	b.Run("2KB-lexicon", func(b *testing.B) {
		l := NewLexicon(1000)
		b.SetBytes(int64(len(short[0])))
		i := 0
		for b.Loop() {
			l.Article("Transport report: record year", "A summary of the report.", short[i%len(short)], C)
			i++
		}
	})
}

// TestArticleBinary: the binary vector holds the literal's lexemes in
// the server's order, each with its positions, the weight in the top two
// bits.
func TestArticleBinary(t *testing.T) {
	got := NewLexicon(10).ArticleBinary("Go 1.26 released", "The release notes", "Releasing the notes now", C)
	pos := func(p uint16, w Weight) string { v := uint16(w)<<14 | p; return string([]byte{byte(v >> 8), byte(v)}) }
	n := func(k int) string { return string([]byte{0, byte(k)}) }
	want := "\x00\x00\x00\x05" +
		"1\x00" + n(1) + pos(2, A) +
		"26\x00" + n(1) + pos(3, A) +
		"go\x00" + n(1) + pos(1, A) +
		"note\x00" + n(2) + pos(7, B) + pos(10, C) +
		"releas\x00" + n(3) + pos(4, A) + pos(6, B) + pos(8, C)
	if string(got) != want {
		t.Errorf("ArticleBinary = %q\nwant            %q", got, want)
	}
	if got := (*Lexicon)(nil).ArticleBinary("", "", "", C); string(got) != "\x00\x00\x00\x00" {
		t.Errorf("no text: %q, want no lexemes", got)
	}
}
