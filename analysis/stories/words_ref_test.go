package stories

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// referenceWords is appendWords as it was before ASCII words were
// hashed a run at a time: byte by byte through the switch.
func referenceWords(dst []uint64, line string) []uint64 {
	line, _ = nfkd(line, nil)
	h := uint64(fnvOffset)
	n := 0 // bytes in the current word
	flush := func() {
		if n > 0 {
			dst = append(dst, h)
		}
		h, n = fnvOffset, 0
	}
	add := func(c byte) {
		h ^= uint64(c)
		h *= fnvPrime
		n++
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			switch {
			case (c == 'h' || c == 'H') && n == 0 && hasURLPrefix(line[i:]):
				i = skipToSpace(line, i)
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				add(c)
				i++
			case 'A' <= c && c <= 'Z':
				add(c + 'a' - 'A')
				i++
			case c == '.' && n > 0 && i > 0 && isDigit(line[i-1]) && i+1 < len(line) && isDigit(line[i+1]):
				add(c)
				i++
			case c == ']' && i+1 < len(line) && line[i+1] == '(':
				// "[text](target)": the text is read, the target skipped.
				flush()
				i = mdtext.SkipParens(line, i+1)
			case c == '!' && i+1 < len(line) && line[i+1] == '[':
				// An image: neither alt text nor target is the story.
				flush()
				i = skipImage(line, i)
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
			// An accent split off by NFKD: not part of the comparison.
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			var enc [utf8.UTFMax]byte
			for _, b := range enc[:utf8.EncodeRune(enc[:], unicode.ToLower(r))] {
				add(b)
			}
		default:
			flush()
		}
	}
	flush()
	return dst
}

// TestWordsMatchReference: the word hashes of every line are those of the
// reference, on the story set, converted pages and corner cases.
func TestWordsMatchReference(t *testing.T) {
	var wh wordHasher
	lines := 0
	for _, text := range referenceTexts(t) {
		for line := range strings.Lines(text) {
			got, want := wh.appendWords(nil, line), referenceWords(nil, line)
			if len(got) != len(want) {
				t.Fatalf("%q: %d words, want %d", line, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%q: word %d hashes %x, want %x", line, i, got[i], want[i])
				}
			}
			lines++
		}
	}
	if lines < 1000 {
		t.Fatalf("only %d lines compared", lines)
	}
}
