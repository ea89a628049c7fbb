package extract

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Stats measures an extracted document.
type Stats struct {
	// WordCount counts runs of letters or digits in the body text; each
	// Han, Hiragana, Katakana or Hangul character counts as one word, as
	// those scripts do not separate words with spaces.
	WordCount int
	// ReadingTimeSeconds assumes 230 words a minute.
	ReadingTimeSeconds int
	// InputTokens and OutputTokens estimate LLM tokens (see EstimateTokens)
	// of the raw HTML and of the body Markdown.
	InputTokens, OutputTokens int
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

func computeStats(page []byte, d *Document) Stats {
	s := Stats{
		WordCount:    CountWords(d.Text),
		InputTokens:  EstimateTokens(string(page)),
		OutputTokens: EstimateTokens(d.Markdown),
	}
	s.ReadingTimeSeconds = int(math.Ceil(float64(s.WordCount) * 60 / wordsPerMinute))
	if len(d.Markdown) > 0 {
		s.CompressionRatio = math.Round(float64(len(page))/float64(len(d.Markdown))*100) / 100
	}
	s.Quality = qualityScore(d.Markdown, d.Text, s.WordCount)
	return s
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
func CountWords(text string) int {
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

// EstimateTokens approximates the number of tokens a cl100k-style BPE
// tokenizer (GPT-4 family) produces for s, without its 1.7 MB vocabulary
// or its regular expressions, which would cost more CPU than extracting
// the page. It mirrors cl100k's pre-tokenisation: a letter run with its
// leading space is one piece, digits go in groups of three, a punctuation
// run is one piece, line breaks are their own piece; then long pieces are
// split the way BPE splits rare words: one more token per 5 ASCII letters
// beyond the first 6, one per character in CJK scripts, one per three
// letters in other scripts. It is an estimate (not calibrated against
// the real vocabulary), good for ratios and budgets, not billing.
func EstimateTokens(s string) int {
	tokens := 0
	i := 0
	// next returns the rune at i and its size, with a fast path for ASCII.
	next := func(i int) (rune, int) {
		if c := s[i]; c < utf8.RuneSelf {
			return rune(c), 1
		}
		return utf8.DecodeRuneInString(s[i:])
	}
	for i < len(s) {
		r, size := next(i)
		switch {
		case r == '\n' || r == '\r':
			// A run of line breaks is one piece.
			for i < len(s) && (s[i] == '\n' || s[i] == '\r') {
				i++
			}
			tokens++
		case r == ' ' || r == '\t':
			// A single space joins the next piece; longer runs are a piece.
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j-i > 1 {
				tokens++
			}
			i = j
		case r < utf8.RuneSelf && asciiLetter(byte(r)):
			j := i
			for j < len(s) && asciiLetter(s[j]) {
				j++
			}
			n := j - i
			i = j
			// A word continuing in non-ASCII letters (accents) costs more.
			other := 0
			for i < len(s) && s[i] >= utf8.RuneSelf {
				r, size = next(i)
				if !unicode.IsLetter(r) || isCJK(r) {
					break
				}
				other++
				i += size
				for i < len(s) && asciiLetter(s[i]) {
					i++
					n++
				}
			}
			tokens += 1 + max(0, n-6)/5 + other/2
		case r < utf8.RuneSelf && asciiDigit(byte(r)):
			j := i
			for j < len(s) && asciiDigit(s[j]) {
				j++
			}
			tokens += (j - i + 2) / 3
			i = j
		case r < utf8.RuneSelf:
			// ASCII punctuation and symbols: one piece per run.
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && !asciiLetter(s[j]) && !asciiDigit(s[j]) && s[j] != ' ' && s[j] != '\n' && s[j] != '\r' && s[j] != '\t' {
				j++
			}
			if j == i {
				j++ // \v, \f and other controls
			}
			tokens += (j - i + 1) / 2
			i = j
		case isCJK(r):
			tokens++
			i += size
		case unicode.IsLetter(r):
			n := 0
			for i < len(s) {
				r, size = next(i)
				if !isLetter(r) || isCJK(r) {
					break
				}
				n++
				i += size
			}
			tokens += 1 + n/3
		case unicode.IsDigit(r):
			for i < len(s) {
				r, size = next(i)
				if !isDigit(r) {
					break
				}
				i += size
			}
			tokens++
		default:
			// Non-ASCII punctuation, symbols, emoji, no-break spaces.
			if !unicode.IsSpace(r) {
				tokens++
			}
			i += size
		}
	}
	return tokens
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
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		lines++
		if CountWords(l) < 4 {
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
