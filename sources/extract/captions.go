package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dropCaptions removes figure captions from the page before extraction,
// keeping the pictures: captions annotate the article rather than carry
// it, and readers of the text skip them (keeping them cost 1.5 points of
// precision on the benchmark). A caption is a <figcaption>, or a small
// block whose class or id says "caption" (the rule go-trafilatura applies
// when images are off); a block holding more paragraphs than a caption
// and its credit line is a container, not a caption, whatever its class.
func dropCaptions(root *html.Node) {
	var doomed []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if n.DataAtom == atom.Figcaption || (captionBlockTag(n.DataAtom) && strings.Contains(attr(n, "class")+" "+attr(n, "id"), "caption") && !holdsArticleBlocks(n)) {
			doomed = append(doomed, n)
			return false
		}
		return true
	})
	removeNodes(doomed)
}

func captionBlockTag(a atom.Atom) bool {
	switch a {
	case atom.Div, atom.Dd, atom.Dt, atom.Li, atom.Ul, atom.Ol, atom.Dl, atom.P, atom.Section, atom.Span:
		return true
	}
	return false
}

// holdsArticleBlocks reports whether n contains more paragraphs than a
// caption has (a caption and its credit line).
func holdsArticleBlocks(n *html.Node) bool {
	paragraphs := 0
	walk(n, func(c *html.Node) bool {
		if c != n && c.Type == html.ElementNode && c.DataAtom == atom.P {
			paragraphs++
		}
		return paragraphs <= 2
	})
	return paragraphs > 2
}

// italicCaptions writes each kept <figcaption> as a paragraph of italic
// text, so the caption reads as one under its picture rather than as
// body text.
func italicCaptions(root *html.Node) {
	var caps []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Figcaption {
			caps = append(caps, n)
			return false
		}
		return true
	})
	for _, c := range caps {
		text := textContent(c)
		if text == "" || c.Parent == nil {
			if c.Parent != nil {
				c.Parent.RemoveChild(c)
			}
			continue
		}
		p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
		em := &html.Node{Type: html.ElementNode, Data: "em", DataAtom: atom.Em}
		p.AppendChild(em)
		if hasBlockChild(c) {
			em.AppendChild(&html.Node{Type: html.TextNode, Data: text})
		} else {
			moveChildren(c, em)
		}
		c.Parent.InsertBefore(p, c)
		c.Parent.RemoveChild(c)
	}
}
