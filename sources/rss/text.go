package rss

import (
	"html"
	"regexp"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textKind says how a feed's text field is to be read.
type textKind int

const (
	// kindHTML: markup, possibly entity-escaped. RSS titles, names and
	// descriptions are read this way by convention; Atom type="html" and
	// type="xhtml" say so.
	kindHTML textKind = iota
	// kindText: plain text, every character as written (Atom type="text",
	// JSON Feed content_text). A "<b>" in it is text, not a tag.
	kindText
)

// atomKind reads an Atom text construct's type (and Atom 0.3's mode).
// RFC 4287 makes a construct without type plain text.
func atomKind(typ, mode string) textKind {
	t := strings.ToLower(strings.TrimSpace(typ))
	switch {
	case strings.Contains(t, "html"):
		return kindHTML
	case t == "" && strings.EqualFold(strings.TrimSpace(mode), "escaped"):
		// Atom 0.3 escaped without a type: markup in practice.
		return kindHTML
	}
	return kindText
}

// plainText is what a reader shows of a title or name: markup removed,
// entities decoded, whitespace collapsed. Text of kindText is only
// collapsed.
func plainText(s string, kind textKind) string {
	if kind == kindHTML && strings.ContainsAny(s, "<&") {
		s = htmlToText(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// titleText is plainText for titles and names, which a reader never
// shows with markup: text that still holds a tag or an entity reference
// after its kind's decoding was escaped once too often by the publisher
// ("&amp;lt;b&amp;gt;", "Lo&amp;#239;c") and is decoded again, as the
// Markdown converter does with over-escaped bodies. A lone "<" or "&" in
// text stays.
func titleText(s string, kind textKind) string {
	t := plainText(s, kind)
	// A few rounds at most: each one must have changed the text.
	for round := 0; round < 3 && (leftoverTagRe.MatchString(t) || leftoverEntityRe.MatchString(t)); round++ {
		next := plainText(t, kindHTML)
		if next == t {
			break
		}
		t = next
	}
	return t
}

var (
	leftoverTagRe    = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9-]*(\s[^<>]*)?/?>`)
	leftoverEntityRe = regexp.MustCompile(`&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});`)
)

// blockTags separate words even when the markup has no space between
// them ("<p>a</p><p>b</p>" reads "a b").
var blockTags = map[atom.Atom]bool{
	atom.Br: true, atom.P: true, atom.Div: true, atom.Li: true, atom.Tr: true, atom.Td: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Blockquote: true, atom.Pre: true, atom.Hr: true,
}

// htmlToText keeps the text of an HTML snippet: tags dropped, entities
// decoded by the tokenizer, script and style content skipped.
func htmlToText(s string) string {
	z := xhtml.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Script || a == atom.Style:
				if tt == xhtml.StartTagToken {
					skip++
				} else if tt == xhtml.EndTagToken && skip > 0 {
					skip--
				}
			case blockTags[a]:
				b.WriteByte(' ')
			}
		}
	}
}

var (
	// nameEmailRe and emailNameRe are RSS's "Name (email)" and
	// "email (Name)" forms.
	emailNameRe = regexp.MustCompile(`^\S+@\S+\s+\((.+)\)$`)
	nameEmailRe = regexp.MustCompile(`^(.+?)\s+\(\S+@\S+\)$`)
	bylineRe    = regexp.MustCompile(`(?i)^by\s+`)
	blankLineRe = regexp.MustCompile(`\n\s*\n`)
)

// personText is the name a reader shows for an author field that may
// hold markup ("by <a href=…>Foo Bar</a>"), an "email (Name)" pair or a
// bare e-mail address.
func personText(s string, kind textKind) string {
	t := titleText(s, kind)
	t = bylineRe.ReplaceAllString(t, "")
	if m := emailNameRe.FindStringSubmatch(t); m != nil {
		return strings.TrimSpace(m[1])
	}
	if m := nameEmailRe.FindStringSubmatch(t); m != nil {
		return strings.TrimSpace(m[1])
	}
	return t
}

// textToHTML turns plain text into HTML that says the same: every
// character escaped, blank lines separating paragraphs, single line
// breaks kept. The paragraph element also keeps the Markdown converter
// from taking escaped text for escaped markup.
func textToHTML(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	for _, para := range blankLineRe.Split(strings.TrimSpace(s), -1) {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		lines := strings.Split(para, "\n")
		for i, l := range lines {
			lines[i] = html.EscapeString(strings.TrimSpace(l))
		}
		b.WriteString("<p>" + strings.Join(lines, "<br>") + "</p>")
	}
	return b.String()
}
