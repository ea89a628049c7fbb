package extract

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
)

// The converter writes every "<" and ">" of the text as "&lt;"/"&gt;" and
// leaves "&" as it is, so "1 < 2" came out as "1 &lt; 2" while a text
// "&copy;" (from "&amp;copy;") rendered as "©". Instead, the characters of
// text nodes are hidden behind noncharacters before the converter sees
// them, and after conversion each one is written literally, or
// backslash-escaped where CommonMark would read it as markup.
//
// Asterisks go the same way: the converter escapes them itself, but runs
// of them inside bold text come out wrong ("**Dia\*\*\** Co\**" for
// <strong>Dia**** Co**</strong>, which loses asterisks and breaks the
// bold). Each one is escaped unless spaces stand on both sides of it
// ("5 * 3"), where it can neither open nor close emphasis.
const (
	sentinelLT   = '\uFDD0'
	sentinelGT   = '\uFDD1'
	sentinelAmp  = '\uFDD2'
	sentinelStar = '\uFDD3'
)

var hideSpecials = strings.NewReplacer(
	"<", string(sentinelLT),
	">", string(sentinelGT),
	"&", string(sentinelAmp),
	"*", string(sentinelStar),
	// Noncharacters have no business in text; dropping any that arrive
	// keeps them from being taken for ours.
	string(sentinelLT), "\uFFFD",
	string(sentinelGT), "\uFFFD",
	string(sentinelAmp), "\uFFFD",
	string(sentinelStar), "\uFFFD",
)

// showSpecials turns the hidden characters back into their literal form;
// showLinkSpecials does so for "<", ">" and "&" only (a link destination's
// reading). Built once: a replacer costs more to build than to run on an
// article.
var (
	showSpecials     = strings.NewReplacer(string(sentinelLT), "<", string(sentinelGT), ">", string(sentinelAmp), "&", string(sentinelStar), "*")
	showLinkSpecials = strings.NewReplacer(string(sentinelLT), "<", string(sentinelGT), ">", string(sentinelAmp), "&")
)

// registerTextEscaping hides "<", ">" and "&" of text nodes from the
// converter's own entity replacement, which runs later.
func registerTextEscaping(conv *converter.Converter) {
	conv.Register.TextTransformer(func(_ converter.Context, content string) string {
		if !needsHiding(content) {
			// Most text nodes hold none of them, and the replacer copies
			// its input even when it replaces nothing.
			return content
		}
		return hideSpecials.Replace(content)
	}, converter.PriorityEarly)
}

// hidingBytes marks the bytes hideSpecials acts on: the four characters
// it hides and 0xEF, the first byte of every sentinel (U+FDD0-U+FDD3
// are EF B7 90-93 in UTF-8).
var hidingBytes = [256]bool{'<': true, '>': true, '&': true, '*': true, 0xEF: true}

// needsHiding reports whether hideSpecials could change s.
func needsHiding(s string) bool {
	for i := 0; i < len(s); i++ {
		if hidingBytes[s[i]] {
			return true
		}
	}
	return false
}

// hasSentinel reports whether s holds one of the hidden characters. It
// looks for their first two bytes: strings.ContainsAny decodes s rune by
// rune for a set of non-ASCII characters.
func hasSentinel(s string) bool {
	for {
		i := strings.Index(s, "\xef\xb7")
		if i < 0 || i+2 >= len(s) {
			return false
		}
		if c := s[i+2]; c >= 0x90 && c <= 0x93 {
			return true
		}
		s = s[i+2:]
	}
}

var (
	// entityRe is what CommonMark reads as an entity or numeric character
	// reference.
	entityRe = regexp.MustCompile(`^&(?:[A-Za-z][A-Za-z0-9]{0,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});`)
	// emailAutolinkRe is CommonMark's email autolink, the one autolink or
	// tag that can start with a digit or a symbol.
	emailAutolinkRe = regexp.MustCompile(`^<[A-Za-z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>`)
	// containerPrefixRe is a line start made only of indentation, list
	// markers and block-quote markers, after which ">" opens a block quote.
	containerPrefixRe = regexp.MustCompile(`^[ \t]*(?:(?:>|[-*+]|[0-9]{1,9}[.)])[ \t]*)*$`)
)

// maxContainerPrefix bounds the line start examined for each ">", so that
// a hostile line of a million ">" costs linear time; real container
// prefixes are a few bytes.
const maxContainerPrefix = 256

// restoreSpecials writes the hidden characters back into md.
func restoreSpecials(md string) string {
	if !hasSentinel(md) {
		return md
	}
	// Decisions look at the text as it will read, with the other hidden
	// characters already in their literal form.
	plain := showSpecials.Replace(md)
	var b strings.Builder
	b.Grow(len(md) + 16)
	lineStart := 0 // in plain
	quoteEscaped := false
	pi := 0 // position in plain matching the current rune of md
	for i := 0; i < len(md); {
		r, size := utf8.DecodeRuneInString(md[i:])
		switch r {
		case sentinelLT:
			if ltIsMarkup(plain[pi:]) {
				b.WriteByte('\\')
			}
			b.WriteByte('<')
			pi++
		case sentinelGT:
			// Once one ">" of a line is escaped, the rest of the line is
			// paragraph text and needs none.
			if !quoteEscaped && pi-lineStart <= maxContainerPrefix && containerPrefixRe.MatchString(plain[lineStart:pi]) {
				b.WriteByte('\\')
				quoteEscaped = true
			}
			b.WriteByte('>')
			pi++
		case sentinelAmp:
			if entityRe.MatchString(plain[pi:]) {
				b.WriteByte('\\')
			}
			b.WriteByte('&')
			pi++
		case sentinelStar:
			if !spacedStar(plain, pi) {
				b.WriteByte('\\')
			}
			b.WriteByte('*')
			pi++
		default:
			// Bytes are copied as they are, invalid UTF-8 included, so
			// that pi stays aligned with plain.
			b.WriteString(md[i : i+size])
			if r == '\n' {
				lineStart, quoteEscaped = pi+size, false
			}
			pi += size
		}
		i += size
	}
	return b.String()
}

// ltIsMarkup reports whether s, starting with "<", opens something
// CommonMark reads as markup: a tag, a closing tag, a comment, a
// declaration, a processing instruction, or an autolink.
func ltIsMarkup(s string) bool {
	if len(s) < 2 {
		return false
	}
	c := s[1]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '/', c == '!', c == '?':
		return true
	}
	return emailAutolinkRe.MatchString(s)
}

// spacedStar reports an asterisk at plain[i] with a space or tab before
// it and white space or the end after it: CommonMark reads it as text.
// At the start of a line it would be a list marker, so it is not spaced.
func spacedStar(plain string, i int) bool {
	if i == 0 || plain[i-1] != ' ' && plain[i-1] != '\t' {
		return false
	}
	return i+1 == len(plain) || plain[i+1] == ' ' || plain[i+1] == '\t' || plain[i+1] == '\n' || plain[i+1] == '\r'
}
