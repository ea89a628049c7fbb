package extract

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// attr returns the value of the named attribute, or "" when absent.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// hasAttr reports whether the attribute is present, whatever its value.
func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// setAttr sets or replaces an attribute.
func setAttr(n *html.Node, key, val string) {
	for i := range n.Attr {
		if n.Attr[i].Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

// walk visits n and its descendants in document order; returning false from
// fn skips the children of that node.
func walk(n *html.Node, fn func(*html.Node) bool) {
	if n == nil {
		return
	}
	// An explicit stack keeps hostile, deeply nested documents from
	// exhausting the goroutine stack.
	stack := []*html.Node{n}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !fn(cur) {
			continue
		}
		for c := cur.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
}

// textContent returns the concatenated text of n, skipping scripts and
// styles, with runs of whitespace collapsed to one space.
func textContent(n *html.Node) string { return nodeText(n, " ") }

// nodeText joins the text nodes of n with sep, skipping scripts, styles
// and noscript, and collapses white space.
func nodeText(n *html.Node, sep string) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style || c.DataAtom == atom.Noscript) {
			return false
		}
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteString(sep)
		}
		return true
	})
	return collapseSpace(b.String())
}

// collapseSpace trims s and folds every run of white space into one space.
func collapseSpace(s string) string {
	return mdtext.OneLine(s)
}

// classID returns the class and id attributes of n, lower-cased, for
// matching boilerplate and content hints.
func classID(n *html.Node) string {
	return strings.ToLower(attr(n, "class") + " " + attr(n, "id"))
}

// documentBase returns the URL relative references on the page resolve
// against: <base href> (itself resolved against the page URL) when present,
// else the page URL. It returns nil when neither is an absolute URL.
func documentBase(doc *html.Node, pageURL string) *url.URL {
	page, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil || !page.IsAbs() {
		page = nil
	}
	var baseHref string
	walk(doc, func(n *html.Node) bool {
		if baseHref != "" {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Base && hasAttr(n, "href") {
			baseHref = strings.TrimSpace(attr(n, "href"))
			if baseHref == "" {
				baseHref = " "
			}
			return false
		}
		// <base> only counts in <head>; don't descend into <body>.
		return n.Type != html.ElementNode || n.DataAtom != atom.Body
	})
	baseHref = strings.TrimSpace(baseHref)
	if baseHref == "" {
		return page
	}
	b, err := url.Parse(baseHref)
	if err != nil {
		return page
	}
	if page != nil {
		b = page.ResolveReference(b)
	}
	if !b.IsAbs() {
		return page
	}
	return b
}

// removeNodes takes each node out of its tree; nodes already out (inside
// one removed before) are left alone.
func removeNodes(nodes []*html.Node) {
	for _, n := range nodes {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// moveChildren moves the children of from, in order, to the end of to.
func moveChildren(from, to *html.Node) {
	for k := from.FirstChild; k != nil; {
		next := k.NextSibling
		from.RemoveChild(k)
		to.AppendChild(k)
		k = next
	}
}

// textAll reports whether n holds any text (found) and whether every
// character of it satisfies in: what strings.TrimFunc(text, in) == ""
// tells of its text concatenated, without building the text, and
// stopping at the first character that fails (found is then not to be
// relied on). With skipScripts the text under script, style and noscript
// is left out, as nodeText leaves it out. Invalid UTF-8 is judged on the
// concatenation, as before: bytes of two text nodes can join into one
// character there.
func textAll(n *html.Node, skipScripts bool, in func(rune) bool) (found, all bool) {
	skipped := func(c *html.Node) bool {
		return skipScripts && c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style || c.DataAtom == atom.Noscript)
	}
	all = true
	invalid := false
	walk(n, func(c *html.Node) bool {
		if !all || invalid || skipped(c) {
			return false
		}
		if c.Type == html.TextNode && c.Data != "" {
			found = true
			if !utf8.ValidString(c.Data) {
				invalid = true
				return false
			}
			for _, r := range c.Data {
				if !in(r) {
					all = false
					return false
				}
			}
		}
		return true
	})
	if !invalid {
		return found, all
	}
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if skipped(c) {
			return false
		}
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.Len() > 0, strings.TrimFunc(b.String(), in) == ""
}
