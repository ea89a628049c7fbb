package summary

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsDateStamp reports text that is only a date stamp: a publication or
// update line such as "Published: 09th June 2013", "May 3, 2013 at 7:31
// AM ET" or "PUBLISHED: 02:31 GMT, 12 March 2013 | UPDATED: 22:19 GMT":
// nothing but labels, weekdays, months, figures, times, time zones and
// separators, with at least one figure. A summary is never one.
func IsDateStamp(text string) bool {
	// Prose answers at its first word, most often one of ASCII letters:
	// that is looked up as it is, without reading the text by fields.
	if w, ok := firstLetters(text); ok && len(w) <= 16 {
		var buf [16]byte
		key := buf[:len(w)]
		for i := 0; i < len(w); i++ {
			key[i] = w[i] | 0x20 // an ASCII letter's lower case
		}
		if !stampWords[string(key)] {
			return false
		}
	}
	n, figure := 0, false
	var buf [64]byte
	for w := range strings.FieldsSeq(text) {
		// The key in a buffer when it is short ASCII, most words: the
		// first word of prose already answers, and lower-casing it to a
		// new string cost more than the rest.
		var stamp, digit bool
		if t := strings.TrimFunc(w, isStampPunct); isASCII(t) && len(t) <= len(buf) {
			if t == "" {
				continue
			}
			var key []byte
			key, digit = lowerASCIIInto(buf[:0], t)
			stamp = isStampKey(key)
		} else {
			key := strings.ToLower(t)
			if key == "" {
				continue
			}
			stamp, digit = isStampWord(key), strings.ContainsFunc(key, unicode.IsDigit)
		}
		if n++; n > 24 || !stamp {
			return false
		}
		figure = figure || digit
	}
	return figure
}

// firstLetters is text's first field when text opens with it (no space
// before it) and it is of ASCII letters alone, ended by an ASCII space or
// the end of text; ok is false for any other text.
func firstLetters(text string) (string, bool) {
	i := 0
	for i < len(text) && ('a' <= text[i]|0x20 && text[i]|0x20 <= 'z') {
		i++
	}
	if i == 0 || i < len(text) && (text[i] >= utf8.RuneSelf || asciiSpace[text[i]] == 0) {
		return "", false
	}
	return text[:i], true
}

// stripDateStamp removes a labelled date stamp that opens a paragraph,
// where a page ran its dateline into the text ("Published: 12 March 2013
// An orderly protest …" → "An orderly protest …"). Text without one is
// returned as it is.
func stripDateStamp(p string) string {
	first, _, _ := strings.Cut(p, " ")
	if !isStampOpener(first) {
		return p
	}
	rest, figure := p, false
	for rest != "" {
		w, after, _ := strings.Cut(rest, " ")
		key := stampKey(w)
		if key != "" && !isStampWord(key) {
			break
		}
		figure = figure || strings.ContainsFunc(w, unicode.IsDigit)
		rest = after
	}
	if !figure || rest == p {
		return p
	}
	return strings.TrimSpace(rest)
}

// stampKey is a word as a date stamp is read: lower case, without the
// separators and punctuation around it.
func stampKey(w string) string {
	return strings.ToLower(strings.TrimFunc(w, isStampPunct))
}

// isStampOpener is stampOpeners[stampKey(w)], a short ASCII word's key
// lower-cased on the stack: the first word of every paragraph is asked,
// and a new lower-case string of each capital was most of the cost.
func isStampOpener(w string) bool {
	t := strings.TrimFunc(w, isStampPunct)
	if !isASCII(t) {
		return stampOpeners[strings.ToLower(t)]
	}
	var buf [16]byte
	if len(t) > len(buf) {
		// Longer than every opener, in lower case as it is.
		return false
	}
	key, _ := lowerASCIIInto(buf[:0], t)
	return stampOpeners[string(key)]
}

// lowerASCIIInto appends t, ASCII, in lower case to dst, which has room
// for it (a buffer on the caller's stack), and says whether t has a
// digit.
func lowerASCIIInto(dst []byte, t string) (key []byte, digit bool) {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
		digit = digit || '0' <= c && c <= '9'
	}
	return dst, digit
}

// isStampPunct tells the separators and punctuation stampKey removes.
func isStampPunct(r rune) bool { return strings.ContainsRune(",.;:|()[]-–—/·•@*", r) }

// isStampKey is isStampWord of a key in a buffer.
func isStampKey(k []byte) bool {
	if stampWords[string(k)] {
		return true
	}
	return (k[0] >= '0' && k[0] <= '9' || bytes.HasPrefix(k, []byte("gmt")) || bytes.HasPrefix(k, []byte("utc"))) &&
		stampFigure.MatchString(string(k)) // a copy: the buffer stays on the caller's stack
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isStampWord(w string) bool {
	if stampWords[w] {
		return true
	}
	// Only a figure, or a time zone offset, is worth the expression.
	return (w[0] >= '0' && w[0] <= '9' || strings.HasPrefix(w, "gmt") || strings.HasPrefix(w, "utc")) && stampFigure.MatchString(w)
}

// stampLabels are the words of a date stamp besides dates and times;
// stampOpeners those it starts with when it runs into the text ("On May
// 3, police said" is prose).
var (
	stampLabels  = set(`published posted updated first last edited modified date time on at by`)
	stampOpeners = set(`published posted updated first last edited modified date time`)
)

func init() {
	for w := range stampOpeners {
		if len(w) > 16 {
			panic("summary: a date stamp opener longer than isStampOpener's buffer")
		}
	}
}

// stampWords are stampLabels and stampCalendar in one set: a word of
// prose, the first of every sentence, is looked up once, not twice.
var stampWords = func() map[string]bool {
	m := map[string]bool{}
	for _, set := range []map[string]bool{stampLabels, stampCalendar} {
		for w := range set {
			m[w] = true
		}
	}
	return m
}()

// stampCalendar are the words of dates and times besides figures.
var stampCalendar = set(`monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri
	sat sun january february march april may june july august september october november december jan feb mar
	apr jun jul aug sep sept oct nov dec am pm a.m p.m noon midnight gmt utc et est edt ct cst cdt mt mst mdt pt
	pst pdt bst cet cest eet eest ist jst hkt aest aedt sgt`)

// stampFigure matches a figure of a date or time: "09th", "2013", "12:41",
// "2012.08.08", "27/09/2013", "11:25am", "GMT+02:00".
var stampFigure = regexp.MustCompile(`^((gmt|utc)[+-])?\d[\d:./+-]*(st|nd|rd|th|am|pm|a\.m|p\.m|h)?$`)
