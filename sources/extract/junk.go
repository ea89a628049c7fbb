package extract

import (
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Clutter that survives extraction and is no content to a reader,
// recognised by structure: layout tables, footers that repeat a table's
// header, paragraphs of invisible characters, share buttons, and
// headings left with nothing under them at the end.

// cleanTables drops tables that hold nothing (layout), unwraps tables of
// one cell (layout around content), keeps the pictures of tables that
// hold only pictures, and removes a <tfoot> that repeats the header (or
// moves any other to the end, where a reader expects a footer; a table
// may declare it before its body).
func cleanTables(root *html.Node) {
	var tables []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			tables = append(tables, n)
		}
		return true
	})
	// Innermost first, so a layout table around a data table sees the
	// inner one already cleaned.
	for i := len(tables) - 1; i >= 0; i-- {
		t := tables[i]
		if t.Parent == nil {
			continue
		}
		text := strings.TrimFunc(textContentRaw(t), isInvisible)
		cells := countCells(t)
		switch {
		case text == "" && !hasDescendant(t, atom.Img):
			t.Parent.RemoveChild(t)
		case text == "" || cells == 1:
			unwrapTable(t)
		default:
			fixFooter(t)
		}
	}
}

func countCells(t *html.Node) int {
	n := 0
	walk(t, func(c *html.Node) bool {
		if c != t && c.Type == html.ElementNode && c.DataAtom == atom.Table {
			return false
		}
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
			n++
			return false
		}
		return true
	})
	return n
}

// unwrapTable replaces a layout table by the content of its cells.
func unwrapTable(t *html.Node) {
	var cells []*html.Node
	walk(t, func(c *html.Node) bool {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th || c.DataAtom == atom.Caption) {
			cells = append(cells, c)
			return false
		}
		return true
	})
	for _, c := range cells {
		div := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		moveChildren(c, div)
		t.Parent.InsertBefore(div, t)
	}
	t.Parent.RemoveChild(t)
}

// dropRepeatedFooters applies fixFooter to every table of the page before
// extraction, which turns footers into ordinary rows.
func dropRepeatedFooters(root *html.Node) {
	var tables []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			tables = append(tables, n)
		}
		return true
	})
	for _, t := range tables {
		fixFooter(t)
	}
}

func fixFooter(t *html.Node) {
	var head, foot *html.Node
	walk(t, func(c *html.Node) bool {
		if c != t && c.Type == html.ElementNode && c.DataAtom == atom.Table {
			return false
		}
		if c.Type == html.ElementNode {
			switch {
			case c.DataAtom == atom.Tfoot && foot == nil:
				foot = c
				return false
			case c.DataAtom == atom.Thead && head == nil:
				head = c
			case c.DataAtom == atom.Tr && head == nil && hasDescendant(c, atom.Th):
				head = c
			}
		}
		return true
	})
	if foot == nil {
		return
	}
	foot.Parent.RemoveChild(foot)
	if head != nil && cellTexts(head) == cellTexts(foot) {
		return
	}
	t.AppendChild(foot)
}

// cellTexts is the text of each cell of n, joined by tabs.
func cellTexts(n *html.Node) string {
	var cells []string
	walk(n, func(c *html.Node) bool {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
			cells = append(cells, textContent(c))
			return false
		}
		return true
	})
	return strings.Join(cells, "\t")
}

// isInvisible reports white space and characters that show nothing: a
// paragraph of zero-width spaces is an empty paragraph.
func isInvisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
}

// onlyInvisible reports whether the text under n shows nothing.
func onlyInvisible(n *html.Node) bool {
	_, all := textAll(n, false, isInvisible)
	return all
}

// dropInvisibleBlocks removes paragraphs and divisions whose text shows
// nothing and that hold no picture.
func dropInvisibleBlocks(root *html.Node) {
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n == root {
			return true
		}
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Blockquote, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if found, all := textAll(n, false, isInvisible); found && all && !hasDescendant(n, atom.Img) {
				drop = append(drop, n)
				return false
			}
		}
		return true
	})
	removeNodes(drop)
}

// isShareLink reports a link that asks a social network or messenger to
// share the page: known share endpoints, by the form of their URLs.
func isShareLink(href string) bool {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "whatsapp", "fb-messenger", "tg", "viber", "sms":
		return true
	case "mailto":
		// A mail with no recipient and a subject: "send to a friend".
		return u.Opaque == "" && u.Query().Get("subject") != ""
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	host = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(host, "m."), "api."), "web.")
	path := strings.ToLower(u.Path)
	for _, e := range shareEndpoints {
		if host == e.host && strings.HasPrefix(path, e.path) {
			return true
		}
	}
	return false
}

var shareEndpoints = []struct{ host, path string }{
	{"facebook.com", "/sharer"}, {"facebook.com", "/share.php"}, {"facebook.com", "/dialog/share"}, {"facebook.com", "/dialog/feed"},
	{"twitter.com", "/intent/tweet"}, {"twitter.com", "/share"}, {"x.com", "/intent/"}, {"x.com", "/share"},
	{"wa.me", "/"}, {"whatsapp.com", "/send"},
	{"linkedin.com", "/sharearticle"}, {"linkedin.com", "/sharing/"}, {"linkedin.com", "/cws/share"},
	{"pinterest.com", "/pin/create"}, {"reddit.com", "/submit"},
	{"t.me", "/share"}, {"telegram.me", "/share"}, {"vk.com", "/share.php"},
	{"tumblr.com", "/share"}, {"tumblr.com", "/widgets/share"}, {"line.me", "/r/msg"},
	{"getpocket.com", "/save"}, {"news.ycombinator.com", "/submitlink"}, {"buffer.com", "/add"},
	{"flipboard.com", "/bookmarklet"}, {"xing.com", "/spi/shares"}, {"plus.google.com", "/share"},
}

// dropShareLinks removes share links, and the list items or paragraphs
// that held nothing else.
func dropShareLinks(root *html.Node) {
	var links []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.A && isShareLink(attr(n, "href")) {
			links = append(links, n)
			return false
		}
		return true
	})
	for _, a := range links {
		p := a.Parent
		if p == nil {
			continue
		}
		p.RemoveChild(a)
		// A block emptied by an earlier link is already out of the tree
		// (its Parent is nil), with this link in it: nothing to climb.
		for p != nil && p != root && p.Parent != nil && p.Type == html.ElementNode && onlyInvisible(p) && !hasDescendant(p, atom.Img) {
			up := p.Parent
			up.RemoveChild(p)
			p = up
		}
	}
	removeEmptyLists(root)
}

// dropTrailingHeadings removes headings that end the content with
// nothing under them ("You may also like:", a widget's title), as long
// as something else remains.
func dropTrailingHeadings(content *html.Node) {
	for range 3 {
		var last *html.Node
		walk(content, func(n *html.Node) bool {
			if n.Type == html.TextNode && strings.TrimFunc(n.Data, isInvisible) != "" {
				last = n
			}
			if n.Type == html.ElementNode && n.DataAtom == atom.Img {
				last = n
			}
			return true
		})
		var h *html.Node
		for p := last; p != nil && p != content; p = p.Parent {
			if isHeading(p) {
				h = p
			}
		}
		if h == nil || strings.TrimFunc(textContentRaw(content), isInvisible) == strings.TrimFunc(textContentRaw(h), isInvisible) {
			return
		}
		h.Parent.RemoveChild(h)
	}
}

// renameCustomElements turns custom elements (<hl-trusted-source>, any
// tag with a hyphen) into the <span> or <div> they behave as, before
// extraction: go-trafilatura drops an element it does not know together
// with the text after it, so "(<x-ref><a>2</a></x-ref>)." lost its ")."
// and the rest of the paragraph. The tag name goes into the class, where
// the extractors look for words such as "share" or "related".
func renameCustomElements(root *html.Node) {
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.DataAtom != 0 || !strings.Contains(n.Data, "-") || n.Namespace != "" {
			return true
		}
		name := n.Data
		n.Data, n.DataAtom = "span", atom.Span
		if hasBlockChild(n) {
			n.Data, n.DataAtom = "div", atom.Div
		}
		setAttr(n, "class", strings.TrimSpace(name+" "+attr(n, "class")))
		return true
	})
}
