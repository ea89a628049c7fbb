package rss

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF16LE = []byte{0xFF, 0xFE}
)

// toUTF8 decides a feed body's encoding the way browsers and mature feed
// readers do and returns the body as UTF-8, its XML declaration (if any)
// rewritten to say so:
//
//  1. a byte order mark;
//  2. the charset the server named in Content-Type;
//  3. the encoding in the XML declaration;
//  4. detection: UTF-16 by its zero bytes, then valid UTF-8, else legacy
//     single-byte text (windows-1252, the superset of ISO-8859-1 that
//     browsers use for both).
//
// A label is only believed when the bytes agree with it: a body that is
// valid UTF-8 with non-ASCII text stays UTF-8 whatever a legacy label says
// (decoding it again would turn "€" into "â‚¬"), a UTF-8 label on bytes
// that are not UTF-8 falls through to the next step, and a UTF-16 label on
// a body without UTF-16's zero bytes is ignored. Text is never replaced by
// U+FFFD unless the bytes are invalid in the encoding decided on.
func toUTF8(body []byte, httpCharset string) []byte {
	switch {
	case bytes.HasPrefix(body, bomUTF8):
		return fixDeclaration(body[len(bomUTF8):])
	case bytes.HasPrefix(body, bomUTF16BE), bytes.HasPrefix(body, bomUTF16LE):
		return fixDeclaration(decodeWith(unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), body))
	}
	if out, ok := decodeLabel(body, httpCharset); ok {
		return fixDeclaration(out)
	}
	if e := utf16Order(body); e != nil {
		return fixDeclaration(decodeWith(e, body))
	}
	if out, ok := decodeLabel(body, declaredEncoding(body)); ok {
		return fixDeclaration(out)
	}
	if utf8.Valid(body) {
		return fixDeclaration(body)
	}
	return fixDeclaration(repairUTF8(body))
}

// decodeLabel decodes body with the encoding label names, when the label
// is known and the bytes agree with it.
func decodeLabel(body []byte, label string) ([]byte, bool) {
	label = strings.TrimSpace(label)
	if label == "" {
		return nil, false
	}
	enc, name := charset.Lookup(label)
	if enc == nil || name == "replacement" {
		return nil, false
	}
	switch {
	case strings.HasPrefix(name, "utf-16"):
		e := utf16Order(body)
		if e == nil {
			return nil, false
		}
		return decodeWith(e, body), true
	case name == "utf-8":
		return body, utf8.Valid(body)
	case utf8.Valid(body) && !isASCII(body):
		// Bytes that are valid UTF-8 and not plain ASCII are UTF-8 text:
		// legacy text almost never forms valid multi-byte sequences.
		return body, true
	}
	return decodeWith(enc, body), true
}

// utf16Order recognises UTF-16 without a byte order mark by the zero
// byte every ASCII character ("<", "{", whitespace) has in it, and says
// which byte comes first. Nil when the body does not look like UTF-16.
func utf16Order(body []byte) encoding.Encoding {
	if len(body) < 4 {
		return nil
	}
	switch {
	case body[0] != 0 && body[1] == 0 && body[2] != 0 && body[3] == 0:
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case body[0] == 0 && body[1] != 0 && body[2] == 0 && body[3] != 0:
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	return nil
}

func decodeWith(e encoding.Encoding, body []byte) []byte {
	out, err := e.NewDecoder().Bytes(body)
	if err != nil {
		return repairUTF8(body)
	}
	return bytes.TrimPrefix(out, bomUTF8)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// repairUTF8 keeps every valid UTF-8 sequence and reads each byte that is
// not part of one as windows-1252: a Latin-1 feed becomes right as a
// whole, and a UTF-8 feed with a few stray Latin-1 bytes keeps both.
func repairUTF8(body []byte) []byte {
	dec := charmap.Windows1252
	out := make([]byte, 0, len(body)+len(body)/8)
	for len(body) > 0 {
		r, size := utf8.DecodeRune(body)
		if r == utf8.RuneError && size <= 1 {
			out = utf8.AppendRune(out, dec.DecodeByte(body[0]))
			body = body[1:]
			continue
		}
		out = append(out, body[:size]...)
		body = body[size:]
	}
	return out
}

// declaration finds a leading <?xml …?> declaration and returns its byte
// span, or nil. Whitespace before it is tolerated, as feeds have it.
func declaration(body []byte) []int {
	head := body[:min(len(body), 1024)]
	start := bytes.Index(head, []byte("<?xml"))
	if start < 0 || len(bytes.TrimSpace(head[:start])) != 0 {
		return nil
	}
	end := bytes.Index(head[start:], []byte("?>"))
	if end < 0 {
		return nil
	}
	return []int{start, start + end + 2}
}

// declAttr finds attribute name in the declaration decl and returns the
// span of its value (without quotes), or nil.
func declAttr(decl []byte, name string) []int {
	i := bytes.Index(decl, []byte(name))
	if i < 0 {
		return nil
	}
	j := i + len(name)
	for j < len(decl) && (decl[j] == ' ' || decl[j] == '=' || decl[j] == '\t') {
		j++
	}
	if j >= len(decl) || (decl[j] != '"' && decl[j] != '\'') {
		return nil
	}
	k := bytes.IndexByte(decl[j+1:], decl[j])
	if k < 0 {
		return nil
	}
	return []int{j + 1, j + 1 + k}
}

// declaredEncoding is the encoding label of the XML declaration, "" when
// there is none.
func declaredEncoding(body []byte) string {
	span := declaration(body)
	if span == nil {
		return ""
	}
	decl := body[span[0]:span[1]]
	if v := declAttr(decl, "encoding"); v != nil {
		return string(decl[v[0]:v[1]])
	}
	return ""
}

// fixDeclaration makes the XML declaration of a body now in UTF-8 say
// encoding="utf-8", and version 1.0: the parser refuses 1.1, whose few
// differences (more control characters, NEL line ends) do not matter to a
// feed's text.
func fixDeclaration(body []byte) []byte {
	span := declaration(body)
	if span == nil {
		return body
	}
	decl := body[span[0]:span[1]]
	fixed := string(decl)
	if v := declAttr(decl, "encoding"); v != nil && !strings.EqualFold(string(decl[v[0]:v[1]]), "utf-8") {
		fixed = string(decl[:v[0]]) + "utf-8" + string(decl[v[1]:])
	}
	if v := declAttr([]byte(fixed), "version"); v != nil && fixed[v[0]:v[1]] != "1.0" {
		fixed = fixed[:v[0]] + "1.0" + fixed[v[1]:]
	}
	if fixed == string(decl) {
		return body
	}
	out := make([]byte, 0, len(body)+8)
	out = append(out, body[:span[0]]...)
	out = append(out, fixed...)
	return append(out, body[span[1]:]...)
}
