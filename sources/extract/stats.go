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

// isCJK reports scripts written without spaces between words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
}

// CountWords counts the words of a text (see Stats.WordCount).
func CountWords(text string) int {
	n, inWord := 0, false
	for _, r := range text {
		switch {
		case isCJK(r):
			n++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' && inWord || r == '’' && inWord:
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
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
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
		case isCJK(r):
			tokens++
			i += size
		case unicode.IsLetter(r):
			ascii, other := 0, 0
			for i < len(s) {
				r, size = utf8.DecodeRuneInString(s[i:])
				if !unicode.IsLetter(r) || isCJK(r) {
					break
				}
				if r < utf8.RuneSelf {
					ascii++
				} else {
					other++
				}
				i += size
			}
			tokens += 1 + max(0, ascii-6)/5 + other/3
		case unicode.IsDigit(r):
			n := 0
			for i < len(s) {
				r, size = utf8.DecodeRuneInString(s[i:])
				if !unicode.IsDigit(r) {
					break
				}
				n++
				i += size
			}
			tokens += (n + 2) / 3
		case unicode.IsSpace(r):
			// Other white space (no-break space, form feed…) joins the next piece.
			i += size
		default:
			n := 0
			for i < len(s) {
				r, size = utf8.DecodeRuneInString(s[i:])
				if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) {
					break
				}
				n++
				i += size
			}
			tokens += (n + 1) / 2
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
