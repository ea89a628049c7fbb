package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// go-trafilatura runs without its link mode, which splits sentences
// around links ("reportedthat"), so the links of the extracted text are
// put back from the page. Each extracted block is found on the page at
// its place, not merely by its words: its text must be a whole block of
// the page, searched for after the block before it, so a table header
// "Stats" never takes the site menu's "Stats" link; and each link is put
// back at its own offset in the block, never on the first words that
// happen to read the same ("knowl[ed]ge").

// textPos is where one character of a block's collapsed text sits.
type textPos struct {
	node *html.Node
	at   int // byte offset in node.Data
}

// blockIndex returns keyText(b) and, for each byte offset of it that
// starts a character, the text node and offset the character came from.
func blockIndex(b *html.Node) (string, []textPos) {
	var key strings.Builder
	var pos []textPos
	space := false
	walk(b, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Noscript) {
			return false
		}
		if n.Type != html.TextNode {
			return true
		}
		for i, r := range n.Data {
			if unicode.IsSpace(r) {
				space = true
				continue
			}
			if space && key.Len() > 0 {
				key.WriteByte(' ')
				pos = append(pos, textPos{})
			}
			space = false
			size := utf8.RuneLen(r)
			if r == utf8.RuneError {
				_, size = utf8.DecodeRuneInString(n.Data[i:])
			}
			key.WriteString(n.Data[i : i+size])
			pos = append(pos, textPos{node: n, at: i})
			for range size - 1 {
				pos = append(pos, textPos{})
			}
		}
		return true
	})
	return key.String(), pos
}

// relink puts the page's links back into the extracted tree, in every
// block found on the page (see above) that has no link of its own.
func relink(content *html.Node, pt *pageText) {
	if len(pt.links) == 0 {
		return
	}
	var blocks []*html.Node
	walk(content, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if n.DataAtom == atom.A || n.DataAtom == atom.Pre || n.Data == "code" && isBlockCode(n) {
			return false
		}
		if blockAtoms[n.DataAtom] && n != content {
			blocks = append(blocks, n)
		}
		return true
	})
	cursor := 0
	for _, b := range blocks {
		key, index := blockIndex(b)
		at := pt.locate(key, cursor)
		if at < 0 {
			continue
		}
		// A container's blocks come next and lie inside its text.
		if hasBlockChild(b) {
			cursor = at
		} else {
			cursor = at + len(key)
		}
		if hasDescendant(b, atom.A) {
			continue
		}
		links := pt.linksIn(at, at+len(key))
		// From the last: wrapping splits a text node, and the part
		// before the link keeps the node, so earlier offsets stay valid.
		for i := len(links) - 1; i >= 0; i-- {
			wrapAt(index, links[i].start-at, links[i].end-at, links[i].href)
		}
	}
}

// wrapAt wraps the block text from byte start to end in <a href>, when
// it lies inside one text node outside code.
func wrapAt(index []textPos, start, end int, href string) {
	if start < 0 || end > len(index) || start >= end {
		return
	}
	first := index[start]
	last := end - 1
	for last > start && index[last].node == nil {
		last--
	}
	n := first.node
	if n == nil || index[last].node != n || inside(n, "code") || inside(n, "a") {
		return
	}
	_, size := utf8.DecodeRuneInString(n.Data[index[last].at:])
	from, to := first.at, index[last].at+size
	a := &html.Node{Type: html.ElementNode, Data: "a", DataAtom: atom.A, Attr: []html.Attribute{{Key: "href", Val: href}}}
	a.AppendChild(&html.Node{Type: html.TextNode, Data: n.Data[from:to]})
	after := n.Data[to:]
	n.Data = n.Data[:from]
	if after != "" {
		n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: after}, n.NextSibling)
	}
	n.Parent.InsertBefore(a, n.NextSibling)
}

// inside reports whether n has an ancestor element named name.
func inside(n *html.Node, name string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == name {
			return true
		}
	}
	return false
}

// pruneLinkBlocks removes blocks that were nothing but links on the page:
// "Read more" teasers, related-article headlines, app and newsletter
// calls to action. The extractor measures link density too, but only on
// whole sections; a single all-link line inside the article slips through.
// Link text is measured on the page, at the block's place, since the
// extracted tree has lost its links by then.
func pruneLinkBlocks(content *html.Node, pt *pageText) {
	if len(pt.links) == 0 {
		return
	}
	var drop []*html.Node
	cursor := 0
	walk(content, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n == content {
			return true
		}
		switch n.DataAtom {
		case atom.P, atom.Li, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Dt, atom.Dd:
		case atom.Pre, atom.Table, atom.Code:
			return false
		default:
			return true
		}
		if hasBlockChild(n) {
			return true
		}
		key := keyText(n)
		at := pt.locate(key, cursor)
		if at < 0 {
			return false
		}
		cursor = at + len(key)
		linked := 0
		for _, l := range pt.linksIn(at, at+len(key)) {
			linked += utf8.RuneCountInString(pt.flat[l.start:l.end])
		}
		total := utf8.RuneCountInString(key)
		if total > 0 && float64(linked) >= 0.8*float64(total) && CountWords(key) <= 25 {
			switch n.DataAtom {
			case atom.Li:
				if !hasProseAfter(content, n) {
					drop = append(drop, n)
				}
			case atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				// A linked heading over a paragraph is a section title
				// (a product in a gift guide); over nothing, a teaser.
				if !proseFollows(n) {
					drop = append(drop, n)
				}
			default:
				drop = append(drop, n)
			}
		}
		return false
	})
	removeNodes(drop)
	removeEmptyLists(content)
}

// hasProseAfter reports whether a paragraph of running text (20 words or
// more) follows n in the content. Lists of links inside the article are
// often its substance (a gift guide, a reading list); after the last
// paragraph they are the site's "related" strip.
func hasProseAfter(content, n *html.Node) bool {
	seen, found := false, false
	walk(content, func(c *html.Node) bool {
		if found {
			return false
		}
		if c == n {
			seen = true
			return false
		}
		if seen && c.Type == html.ElementNode && c.DataAtom == atom.P && CountWords(keyText(c)) >= 20 {
			found = true
		}
		return true
	})
	return found
}

// proseFollows reports whether the next element after n is a paragraph
// of 20 words or more.
func proseFollows(n *html.Node) bool {
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
			continue
		}
		return c.Type == html.ElementNode && CountWords(keyText(c)) >= 20
	}
	return false
}
