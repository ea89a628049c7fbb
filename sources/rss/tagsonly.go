package rss

import (
	"bytes"
	"encoding/xml"
	"strings"
	"unicode/utf8"
)

// tagsOnly returns body without the character data that scanAtomKinds
// has no use for: each run of text between a '>' and the next '<' that
// the XML decoder takes without complaint and that holds no quote. The
// decoder then reads little more than the tags, a fifth of a feed's
// bytes or less: the entries' escaped HTML bodies are the rest.
//
// Dropping such a run changes no tag the decoder reports, nor whether it
// fails. The run holds no '<', '>' or quote, so whatever it sits in (an
// element's text, a comment, a CDATA section, a declaration, an
// attribute's value) starts and ends where it did, and the bytes either
// side of the cut, '>' and '<', form no markup together. As an element's
// text it would have been read without error (plainXMLText); anywhere
// else it was never read as text. The text right after the start tag of
// an element the decoder closes by itself is kept (opensAutoClosed), and
// so is any run the decoder might refuse: the decoder then refuses the
// document as it would have.
func tagsOnly(body []byte) []byte {
	out := make([]byte, 0, len(body)/4)
	copied := 0
	lt := bytes.IndexByte(body, '<')
	for lt >= 0 {
		next := bytes.IndexByte(body[lt+1:], '<')
		if next < 0 {
			break
		}
		next += lt + 1
		if gt := bytes.LastIndexByte(body[lt:next], '>'); gt >= 0 {
			from := lt + gt + 1
			if from < next && !opensAutoClosed(body[lt:from]) && plainXMLText(body[from:next]) {
				out = append(out, body[copied:from]...)
				copied = next
			}
		}
		lt = next
	}
	return append(out, body[copied:]...)
}

// opensAutoClosed reports whether tag, the markup before a run of text,
// is the start tag of an element the decoder closes by itself (an HTML
// void element such as <link> or <br>). The text after such a tag is
// kept: it is what makes the decoder close the element there, and
// without it "<link></link>" would read as one element where
// "<link>text</link>" reads as an element, text and a stray end tag.
func opensAutoClosed(tag []byte) bool {
	if len(tag) < 2 || !isNameStart(tag[1]) {
		return false // an end tag, comment, CDATA section, declaration
	}
	end := 1
	for end < len(tag) && !isNameEnd(tag[end]) {
		end++
	}
	name := string(tag[1:end])
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	for _, s := range xml.HTMLAutoClose {
		if strings.EqualFold(s, name) {
			return true
		}
	}
	return false
}

func isNameStart(c byte) bool { return c != '/' && c != '!' && c != '?' && !isNameEnd(c) }

func isNameEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/' || c == '>'
}

// plainXMLText reports whether encoding/xml's decoder, not strict, reads
// run (which holds no '<' or '>') as text without an error, and whether
// it is inert wherever else it may sit: it is valid UTF-8, every
// character and every numeric character reference is one XML allows,
// and it holds no quote, which could end an attribute's value or change
// where a declaration such as <!DOCTYPE …> ends. Named references never
// fail when not strict (unknown ones stay as written).
func plainXMLText(run []byte) bool {
	for i := 0; i < len(run); {
		c := run[i]
		switch {
		case c == '&' && i+1 < len(run) && run[i+1] == '#':
			n, ok := numericReference(run[i+2:])
			if !ok {
				return false
			}
			i += 2 + n
		case c >= 0x80:
			r, size := utf8.DecodeRune(run[i:])
			if r == utf8.RuneError && size == 1 || !xmlChar(r) {
				return false
			}
			i += size
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == '"', c == '\'':
			return false
		default:
			i++
		}
	}
	return true
}

// numericReference reads what follows "&#" as the decoder does and
// reports how many bytes it takes and whether the character it stands
// for is one XML allows. A reference without its ';' or out of Unicode's
// range is left as written by the decoder, not refused: those are fine.
func numericReference(b []byte) (int, bool) {
	i, base := 0, uint64(10)
	if i < len(b) && b[i] == 'x' {
		i, base = 1, 16
	}
	var n uint64
	digits := 0
	for ; i < len(b); i++ {
		d, ok := digitValue(b[i], base)
		if !ok {
			break
		}
		if n <= utf8.MaxRune {
			n = n*base + d
		}
		digits++
	}
	if i == len(b) || b[i] != ';' || digits == 0 || n > utf8.MaxRune {
		return i, true
	}
	r := rune(n)
	if r >= 0xD800 && r <= 0xDFFF {
		r = utf8.RuneError // what string(rune(n)) makes of a surrogate
	}
	return i + 1, xmlChar(r)
}

func digitValue(c byte, base uint64) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case base == 16 && c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case base == 16 && c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// xmlChar is XML's Char production, as the decoder checks it.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= utf8.MaxRune
}
