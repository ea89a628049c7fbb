package relevance

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenizer splits text into comparable word stems: case-folded, accents
// removed (NFKD, then combining marks dropped), English words stemmed. One
// tokenizer is used for profile terms and for articles, so both sides agree
// on every rule below by construction.
//
// Rules:
//   - a token is a run of letters, digits and spacing marks;
//   - Han, Hiragana, Katakana and Thai characters are one token each, since
//     those scripts do not separate words with spaces: a term in them then
//     matches as a phrase of characters;
//   - apostrophes (' ’ ʼ) split words, and an "s" right after one is dropped
//     so that "scheduler's" reads as "scheduler";
//   - words of ASCII letters are stemmed (Porter2); others are kept as
//     folded.
type tokenizer struct {
	word []byte // the word being built; reused between tokens
	// only, when set, names the stems wanted: a word whose stem cannot be
	// one of them is not stemmed, and fn gets nil for it.
	only *stemPrefixes
}

// each calls fn with every stem of text in order (nil for a word that
// tk.only rules out). fn must not keep the slice: it is overwritten by the
// next token.
func (tk *tokenizer) each(text string, fn func(stem []byte)) {
	if !isASCII(text) {
		text = norm.NFKD.String(text)
	}
	tk.word = tk.word[:0]
	afterApostrophe := false
	// letters: tk.word holds ASCII letters alone (isLowerASCIIWord, once
	// they are lower-cased), kept while the word is written.
	letters := true
	flush := func() {
		if len(tk.word) == 0 {
			return
		}
		w := tk.word
		if !(afterApostrophe && len(w) == 1 && w[0] == 's') {
			if letters {
				if tk.only != nil && !tk.only.mayStemTo(w) {
					w = nil
				} else {
					w = stem(w)
				}
			}
			fn(w)
		}
		tk.word = tk.word[:0]
		letters = true
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z':
				tk.word = append(tk.word, c)
			case '0' <= c && c <= '9':
				tk.word = append(tk.word, c)
				letters = false
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
			// An accent, split off by NFKD: part of the word, not kept.
		case r == '\u2019' || r == '\u02bc':
			flush()
			afterApostrophe = true
		case isCharScript(r):
			flush()
			afterApostrophe = false
			tk.word = utf8.AppendRune(tk.word, r)
			letters = false
			flush()
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mc, r):
			n := len(tk.word)
			tk.word = utf8.AppendRune(tk.word, unicode.ToLower(r))
			letters = letters && isLowerASCIIWord(tk.word[n:])
		default:
			flush()
			afterApostrophe = false
		}
	}
	flush()
}

// isCharScript: scripts written without spaces between words.
func isCharScript(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
}

// isASCII reports whether s is ASCII, eight bytes at a time: a whole
// article is asked before it is read.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8]
		if (t[0]|t[1]|t[2]|t[3]|t[4]|t[5]|t[6]|t[7])&0x80 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLowerASCIIWord(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
