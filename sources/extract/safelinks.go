package extract

import (
	"bytes"
	"html"
	"net/url"
	"strings"
	"unicode"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"
	xhtml "golang.org/x/net/html"
)

// Stored Markdown is read by people and agents through renderers that turn
// its links into clickable ones, so only destinations that cannot run
// anything are kept: http, https and (for links) mailto URLs, and
// relative references. Any other scheme (javascript:, vbscript:, data:,
// file:, ...) loses its link and keeps its text; such an image is dropped.
//
// The check is made on the destination exactly as the converter writes
// it, read the way a Markdown renderer and then a browser would read it:
// entity references and backslash escapes decoded, percent-escapes
// decoded, and every control, space and invisible formatting character
// removed. So "&#1;javascript:", "java\tscript:", "JaVaScRiPt:",
// "javascript&colon;" or "java&amp;#115;cript:" are all seen as the
// javascript: they would become.

// registerSafeLinks puts the destination check in front of the
// converter's own link and image rendering.
func registerSafeLinks(conv *converter.Converter) {
	conv.Register.Renderer(func(ctx converter.Context, w converter.Writer, n *xhtml.Node) converter.RenderStatus {
		if n.Type != xhtml.ElementNode || (n.Data != "a" && n.Data != "img") {
			return converter.RenderTryNext
		}
		key := "href"
		if n.Data == "img" {
			key = "src"
		}
		raw := strings.TrimSpace(attr(n, key))
		if raw == "" {
			return converter.RenderTryNext
		}
		if SafeDestination(ctx.AssembleAbsoluteURL(ctx, n.Data, raw), n.Data == "img") {
			return converter.RenderTryNext
		}
		if n.Data == "a" {
			ctx.RenderChildNodes(ctx, w, n)
		}
		return converter.RenderSuccess
	}, converter.PriorityEarly)
}

// SafeDestination reports whether a link (or image) destination, as
// written into Markdown, is an http(s) or mailto URL or a relative
// reference once a renderer has read it. Whatever renders stored
// Markdown applies it again, so the rule of storage is the rule of
// display.
func SafeDestination(dest string, image bool) bool {
	seen := readAsBrowser(dest)
	scheme, ok := leadingScheme(seen)
	if !ok {
		// A relative reference: it must parse as one, or a renderer may
		// read it differently from us.
		u, err := url.Parse(strings.TrimPrefix(strings.TrimSuffix(dest, ">"), "<"))
		return err == nil && u.Scheme == ""
	}
	switch scheme {
	case "http", "https":
		return true
	case "mailto":
		return !image
	}
	return false
}

// readAsBrowser decodes what a Markdown renderer decodes in a destination
// (entity and numeric character references, backslash escapes, the
// converter's own placeholders for "<", ">" and "&") and what a browser
// ignores or decodes before it looks at the scheme.
func readAsBrowser(dest string) string {
	s := showLinkSpecials.Replace(dest)
	for range 3 { // nested encodings: "&amp;#115;", "%2526", ...
		prev := s
		s = unescapeBackslashes(html.UnescapeString(s))
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		if s == prev {
			break
		}
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r == '\uFFFD' {
			return -1
		}
		return r
	}, s)
	return strings.ToLower(strings.TrimLeft(s, "<"))
}

// unescapeBackslashes removes CommonMark backslash escapes (a backslash
// before ASCII punctuation).
func unescapeBackslashes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(asciiPunct, s[i+1]) >= 0 {
			i++ // the escaped character stands for itself
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// leadingScheme returns the URL scheme s starts with, as RFC 3986 spells
// one (a letter, then letters, digits, "+", "-", "."), before a ":".
func leadingScheme(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], true
		default:
			return "", false
		}
	}
	return "", false
}

// markdownIsSafe reports whether Markdown that arrived as Markdown (a feed
// whose content is already Markdown) may be stored as it is: it holds no
// raw HTML and every link, image and autolink destination passes
// SafeDestination. Otherwise it goes through markdownNodes.
func markdownIsSafe(md string) bool {
	src := []byte(md)
	doc := goldmark.New().Parser().Parse(gmtext.NewReader(src))
	safe := true
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Link:
			safe = SafeDestination(string(v.Destination), false)
		case *ast.Image:
			safe = SafeDestination(string(v.Destination), true)
		case *ast.AutoLink:
			safe = SafeDestination(string(v.URL(src)), false)
		case *ast.RawHTML, *ast.HTMLBlock:
			safe = false
		}
		if !safe {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return safe
}

// markdownNodes renders Markdown that is not safe to store as it is into
// HTML (raw HTML left out, as CommonMark renderers do by default) and
// returns that HTML's nodes, so it is converted back like any fragment,
// with the link check applied. On failure the text nodes stay: converted
// as text, the Markdown is escaped.
func markdownNodes(md string, text []*xhtml.Node) []*xhtml.Node {
	var buf bytes.Buffer
	if err := goldmark.Convert([]byte(md), &buf); err != nil {
		return text
	}
	nodes, err := parseFragment(buf.String())
	if err != nil {
		return text
	}
	return nodes
}
