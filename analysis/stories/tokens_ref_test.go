package stories

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
	"github.com/feedpoller/feedpoller/internal/testpages"
)

// refToken is a token as the straightforward tokenizer below gives it.
type refToken struct {
	text                          string
	capital, sentenceStart, digit bool
}

// referenceTokens is the tokenizer as it was before ASCII words were
// read a run at a time and tokens lost their text (the code of that
// time, rune by rune): what appendTokens must still give.
func referenceTokens(dst []refToken, line string) []refToken {
	line, _ = nfkd(line, nil)
	sentence := true
	var cur refToken
	var word []byte
	skipRest := false
	flush := func() {
		if len(word) > 0 {
			cur.text = string(word)
			cur.sentenceStart = sentence
			dst = append(dst, cur)
			sentence = false
		}
		word = word[:0]
		cur = refToken{}
		skipRest = false
	}
	add := func(r rune) {
		if skipRest {
			return
		}
		if len(word) == 0 {
			cur.capital = unicode.IsUpper(r)
		}
		if '0' <= r && r <= '9' {
			cur.digit = true
		}
		word = utf8.AppendRune(word, unicode.ToLower(r))
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			switch {
			case (c == 'h' || c == 'H') && len(word) == 0 && hasURLPrefix(line[i:]):
				i = skipToSpace(line, i)
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
				add(rune(c))
				i++
			case (c == '.' || c == ',') && len(word) > 0 && !skipRest && isDigit(line[i-1]) && i+1 < len(line) && isDigit(line[i+1]):
				if c == '.' {
					word = append(word, '.')
				}
				i++
			case c == '\'' && len(word) > 0 && i+1 < len(line) && isLetter(line[i+1]):
				skipRest = true
				i++
			case c == ']' && i+1 < len(line) && line[i+1] == '(':
				flush()
				i = mdtext.SkipParens(line, i+1)
			case c == '!' && i+1 < len(line) && line[i+1] == '[':
				flush()
				i = skipImage(line, i)
			case c == '.' || c == '!' || c == '?':
				flush()
				sentence = sentenceEnds(line, i)
				i++
			default:
				flush()
				i++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == '’' && len(word) > 0 && i < len(line) && isLetter(line[i]):
			skipRest = true
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			add(r)
		default:
			flush()
		}
	}
	flush()
	return dst
}

// TestTokensMatchReference: the tokenizer gives the tokens of the
// reference above, text, capital, sentence start and digit alike, on the
// story set, converted real pages and lines made to catch its corners.
func TestTokensMatchReference(t *testing.T) {
	for name, text := range referenceTexts(t) {
		tz := newTokenizer(0)
		var got []token
		var want []refToken
		for line := range strings.Lines(text) {
			got = tz.appendTokens(got, line)
			want = referenceTokens(want, line)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d tokens, want %d", name, len(got), len(want))
			continue
		}
		for i, g := range got {
			w := want[i]
			if tz.words[g.id] != w.text || g.capital != w.capital || g.sentenceStart != w.sentenceStart || g.digit != w.digit {
				t.Errorf("%s: token %d is %q %+v, want %+v", name, i, tz.words[g.id], g, w)
				break
			}
		}
	}
}

// referenceTexts are what the reference tests compare on, by name: the
// corner cases, the story set and converted real pages.
func referenceTexts(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{"corners": tokenCorners}
	for _, a := range loadStorySet(t) {
		texts["set "+a.ID] = a.Title + "\n" + a.Markdown
	}
	for name, text := range testpages.Read(t, "../..", testpages.Converted) {
		texts[filepath.Base(name)] = text
	}
	return texts
}

// tokenCorners are lines made to catch a tokenizer's corners: apostrophes,
// figures, URLs, links and images, abbreviations, accents and other
// scripts, cases, invalid UTF-8.
var tokenCorners = strings.Join([]string{
	"Sudan's army; Sudan’s army; rock'n'roll 'quoted' O'Brien",
	"A 6.1 quake, 30,000 people; v1.24.1 and 6.,7 and 5, 6 and .5 and 5. Then",
	"See https://example.com/a?b=c and HTTP://X.Y or http:/ no; hTtPs://z",
	"[link text](https://target/x) ![alt text](img.png) ![no target] [a](b(c)d) e",
	"U.S. officials met Mr. Smith. “Quoted.” He said! Why? Yes… (Aside.) Next",
	"São Paulo café CAFÉ Ærø İstanbul ǅemal ﬁnance ＡＩ ½ ² Ⅳ 東京 Ελλάδα",
	"cafe\u0301 x\u0301y MiXeD CaSe 123abc ABC123 a1B2 9a A9",
	"Hmm hello http hhttp://x h",
	"'s 's' x' y'z’s ’t",
	"\xff\xfe bad bytes \xc3 here",
}, "\n")
