package extract

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/tokens"
)

// Stats measures an extracted document.
type Stats struct {
	// WordCount counts runs of letters or digits in the body text; each
	// Han, Hiragana, Katakana or Hangul character counts as one word, as
	// those scripts do not separate words with spaces.
	WordCount int
	// ReadingTimeSeconds assumes 230 words a minute.
	ReadingTimeSeconds int
	// InputTokens and OutputTokens are the cl100k_base tokens of the raw
	// HTML and of the body Markdown, counted exactly (see TokenCounter).
	InputTokens, OutputTokens int
	// InputTokensO200k and OutputTokensO200k are the same in o200k_base.
	InputTokensO200k, OutputTokensO200k int
	// CompressionRatio is raw HTML bytes divided by Markdown bytes.
	CompressionRatio float64
	// Quality is 0..1: how much the body reads like a clean article (see
	// Document.GoodEnough).
	Quality float64
}

// wordsPerMinute is a common adult silent-reading speed for prose.
const wordsPerMinute = 230

// TokenReduction is the share of LLM tokens saved by storing the Markdown
// instead of the raw HTML, 0..1.
func (s Stats) TokenReduction() float64 {
	if s.InputTokens == 0 {
		return 0
	}
	return 1 - float64(s.OutputTokens)/float64(s.InputTokens)
}

// computeStats measures d, which came from page: a page's bytes or a
// fragment's string, so that a fragment is not copied into bytes only to
// have its length read.
func computeStats[T string | []byte](page T, d *Document, tokens bool) Stats {
	s := Stats{WordCount: CountWords(d.Text)}
	if tokens {
		s.CountTokens(string(page), d.Markdown)
	}
	s.ReadingTimeSeconds = int(math.Ceil(float64(s.WordCount) * 60 / wordsPerMinute))
	if len(d.Markdown) > 0 {
		s.CompressionRatio = math.Round(float64(len(page))/float64(len(d.Markdown))*100) / 100
	}
	s.Quality = qualityScore(d.Markdown, d.Text, s.WordCount)
	return s
}

// CountTokens fills the token counts of s: page is the raw HTML the
// document came from, markdown its body. A caller that measures several
// candidate documents and keeps one (Options.SkipTokenCounts) counts the
// kept one's tokens with it, once.
func (s *Stats) CountTokens(page, markdown string) {
	s.InputTokens, s.InputTokensO200k = countTokens(page)
	s.OutputTokens, s.OutputTokensO200k = countTokens(markdown)
}

// countTokens counts s in cl100k_base and o200k_base. The vocabularies
// are embedded in the binary, so loading them fails only in a broken
// build (which the tests catch); the counts are then 0, unknown, rather
// than failing the article.
func countTokens(s string) (cl100k, o200k int) {
	if cl, err := tokens.For(tokens.CL100kBase); err == nil {
		cl100k = cl.Count(s)
	}
	if o2, err := tokens.For(tokens.O200kBase); err == nil {
		o200k = o2.Count(s)
	}
	return cl100k, o200k
}

// isCJK reports scripts written without spaces between words (Thai,
// Hangul, Kana, CJK ideographs). Plain range checks: this runs for every
// character of every page.
func isCJK(r rune) bool {
	switch {
	case r < 0x0E00:
		return false
	case r <= 0x0E7F: // Thai
		return true
	case r >= 0x1100 && r <= 0x11FF: // Hangul Jamo
		return true
	case r >= 0x2E80 && r <= 0x9FFF: // CJK radicals, Kana, ideographs
		return true
	case r >= 0xAC00 && r <= 0xD7AF: // Hangul syllables
		return true
	case r >= 0xF900 && r <= 0xFAFF: // compatibility ideographs
		return true
	case r >= 0x20000 && r <= 0x3FFFF: // ideograph extensions
		return true
	}
	return false
}

// asciiClass classifies ASCII bytes for EstimateTokens and CountWords.
func asciiLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func asciiDigit(c byte) bool  { return c >= '0' && c <= '9' }

// isLetter and isDigit avoid the unicode tables for ASCII.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiLetter(byte(r))
	}
	return unicode.IsLetter(r)
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiDigit(byte(r))
	}
	return unicode.IsDigit(r)
}

// CountWords counts the words of a text (see Stats.WordCount).
func CountWords(text string) int { return countWordsUpTo(text, math.MaxInt) }

// asciiWordByte marks the ASCII letters and digits.
var asciiWordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = asciiLetter(byte(c)) || asciiDigit(byte(c))
	}
	return t
}()

// countWordsUpTo counts the words of text, stopping once it has limit.
// ASCII, most of any text, is read a byte at a time without decoding.
func countWordsUpTo(text string, limit int) int {
	n, inWord := 0, false
	for i := 0; i < len(text) && n < limit; {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch {
			case asciiWordByte[c] || c == '\'' && inWord:
				if !inWord {
					n++
					inWord = true
				}
			default:
				inWord = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case isCJK(r):
			n++
			inWord = false
		case isLetter(r) || isDigit(r) || r == '’' && inWord:
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

// qualityScore rates the body 0..1 from three signals: length (short
// bodies are usually teasers or error pages), the share of text that is
// link text (navigation and related-article lists left in), and the share
// of lines that are very short (menus, share buttons, captions).
func qualityScore(md, text string, words int) float64 {
	if words == 0 {
		return 0
	}
	length := math.Min(1, math.Log1p(float64(words))/math.Log1p(300))

	linkText := markdownLinkTextLen(md)
	textLen := utf8.RuneCountInString(text)
	linkDensity := 0.0
	if textLen > 0 {
		linkDensity = math.Min(1, float64(linkText)/float64(textLen))
	}

	lines, short := 0, 0
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		lines++
		if countWordsUpTo(l, 4) < 4 {
			short++
		}
	}
	shortShare := 0.0
	if lines > 0 {
		shortShare = float64(short) / float64(lines)
	}
	q := 0.4*length + 0.35*(1-linkDensity) + 0.25*(1-shortShare)
	return math.Round(q*1000) / 1000
}

// markdownLinkTextLen counts the characters of link texts ("[text](url)")
// in md, images excluded.
func markdownLinkTextLen(md string) int {
	n := 0
	for i := 0; i < len(md); i++ {
		if md[i] != '[' || i > 0 && md[i-1] == '!' || i > 0 && md[i-1] == '\\' {
			continue
		}
		end := strings.Index(md[i:], "](")
		if end < 0 {
			break
		}
		if nl := strings.IndexByte(md[i:i+end], '\n'); nl >= 0 {
			continue
		}
		n += utf8.RuneCountInString(md[i+1 : i+end])
		i += end
	}
	return n
}

// GoodEnough reports whether the document is an article worth storing from
// this extraction tier: at least minWords words and a quality of 0.5 or
// more. The extraction cascade moves to its next tier when it is false.
func (d *Document) GoodEnough(minWords int) bool {
	return d != nil && d.Stats.WordCount >= minWords && d.Stats.Quality >= 0.5
}
