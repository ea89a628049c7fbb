package extract

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCountWords(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"one two  three\nfour", 4},
		{"don't stop, it's fine.", 4},
		{"co-op 3.14 x_y", 6},
		{"東京都に行く", 6},
		{"naïve café", 2},
	}
	for _, tt := range tests {
		if got := CountWords(tt.in); got != tt.want {
			t.Errorf("CountWords(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestQualityRanksCleanArticlesAboveClutter(t *testing.T) {
	article := strings.Repeat("The council said the river fell by a metre overnight and the barriers stay up until Friday. ", 40)
	linkFarm := strings.Repeat("[Home](https://x/) [News](https://x/n) [Sport](https://x/s)\n\n", 40)
	short := "Page not found."
	qa := qualityScore(article, article, CountWords(article))
	ql := qualityScore(linkFarm, strings.Repeat("Home News Sport\n", 40), 120)
	qs := qualityScore(short, short, CountWords(short))
	if !(qa > ql && qa > qs) {
		t.Errorf("quality: article %.3f, link farm %.3f, short %.3f; want the article highest", qa, ql, qs)
	}
	for _, q := range []float64{qa, ql, qs} {
		if q < 0 || q > 1 {
			t.Errorf("quality %.3f outside 0..1", q)
		}
	}
	if qualityScore("", "", 0) != 0 {
		t.Error("empty body must score 0")
	}
}

func TestExtractStatsAndGoodEnough(t *testing.T) {
	page := readTestdata(t, "pages/news.html")
	doc, err := Extract([]byte(page), "https://gazette.example.com/news/x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Stats
	if s.WordCount != CountWords(doc.Text) || s.WordCount < 100 {
		t.Errorf("WordCount = %d, text has %d", s.WordCount, CountWords(doc.Text))
	}
	if want := (s.WordCount*60 + wordsPerMinute - 1) / wordsPerMinute; s.ReadingTimeSeconds != want {
		t.Errorf("ReadingTimeSeconds = %d, want %d", s.ReadingTimeSeconds, want)
	}
	if s.InputTokens <= s.OutputTokens || s.OutputTokens == 0 {
		t.Errorf("tokens in %d, out %d", s.InputTokens, s.OutputTokens)
	}
	if r := s.TokenReduction(); r <= 0.5 || r >= 1 {
		t.Errorf("TokenReduction = %.3f", r)
	}
	if want := float64(len(page)) / float64(len(doc.Markdown)); s.CompressionRatio < want-0.01 || s.CompressionRatio > want+0.01 {
		t.Errorf("CompressionRatio = %.2f, want %.2f", s.CompressionRatio, want)
	}
	if !doc.GoodEnough(50) {
		t.Errorf("a clean 120-word article should be good enough (quality %.3f)", s.Quality)
	}
	if doc.GoodEnough(1000) {
		t.Error("GoodEnough must honour minWords")
	}
	var nilDoc *Document
	if nilDoc.GoodEnough(0) {
		t.Error("nil document is never good enough")
	}
}

// referenceCountWords is CountWords as first written, rune by rune:
// stored word counts and quality scores must not move.
func referenceCountWords(text string) int {
	n, inWord := 0, false
	for _, r := range text {
		switch {
		case isCJK(r):
			n++
			inWord = false
		case isLetter(r) || isDigit(r) || r == '\'' && inWord || r == '’' && inWord:
			if !inWord {
				n++
				inWord = true
			}
		default:
			inWord = false
		}
	}
	return n
}

// TestCountWordsUnchanged compares CountWords, and the capped count the
// quality score uses, with the reference on random text mixing ASCII,
// apostrophes, other scripts and invalid UTF-8.
func TestCountWordsUnchanged(t *testing.T) {
	alphabet := []string{"a", "Z", "0", " ", "\n", "'", "’", "-", ".", "é", "東", "ก", "한", "\u00a0", "\xff", "\xe2\x80", "ß", "٣"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		want := referenceCountWords(s)
		if got := CountWords(s); got != want {
			t.Fatalf("CountWords(%q) = %d, want %d", s, got, want)
		}
		if got := countWordsUpTo(s, 4); got != min(want, 4) {
			t.Fatalf("countWordsUpTo(%q, 4) = %d, want %d", s, got, min(want, 4))
		}
	}
}
