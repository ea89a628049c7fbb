package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// go-trafilatura trims the white space around the text of every element
// it keeps, so text that sat directly in a <div> or <blockquote> beside
// inline markup comes out run together ("**will**appreciate") and, where
// the extractor wrapped the rest of the run in a paragraph, split in two
// ("What everyone" / "**will** appreciate"). The page still says how it
// was written (pageText.lines), and the extracted tree is repaired where
// a junction reads differently from the page.

// junctionContext is how much text either side of a junction is compared
// with the page: enough to be unambiguous, and never past the next
// junction, whose own spacing may still be wrong.
const junctionContext = 40

// restoreSpacing joins paragraphs the extractor split out of one run of
// page text, then puts back the spaces it trimmed between text and inline
// elements. A space is added only where the page has the two sides with
// a space between them and nowhere without one; a line break where the
// page has them on two lines (a <br> the extractor dropped).
func restoreSpacing(content *html.Node, page string) {
	if page == "" {
		return
	}
	joinSplitParagraphs(content, page)
	var texts []*html.Node
	walk(content, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Pre || n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return false
		}
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			texts = append(texts, n)
		}
		return true
	})
	for i := 1; i < len(texts); i++ {
		a, b := texts[i-1], texts[i]
		if endsWithSpace(a.Data) || startsWithSpace(b.Data) || nearestBlock(a) != nearestBlock(b) {
			continue
		}
		left := lastRunes(collapseSpace(a.Data), junctionContext)
		right := firstRunes(collapseSpace(b.Data), junctionContext)
		if strings.Contains(page, left+right) {
			continue
		}
		switch {
		case strings.Contains(page, left+" "+right):
			insertBefore(b, nearestBlock(b), &html.Node{Type: html.TextNode, Data: " "})
		case strings.Contains(page, left+"\n"+right):
			// A line break the extractor dropped (it keeps no <br>).
			insertBefore(b, nearestBlock(b), &html.Node{Type: html.ElementNode, Data: "br", DataAtom: atom.Br})
		}
	}
}

// joinSplitParagraphs unwraps a paragraph whose text continues, on the
// page, the loose text just before it in the same block.
func joinSplitParagraphs(content *html.Node, page string) {
	var split []*html.Node
	walk(content, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.DataAtom != atom.P {
			return true
		}
		prev := n.PrevSibling
		for prev != nil && prev.Type == html.TextNode && strings.TrimSpace(prev.Data) == "" {
			prev = prev.PrevSibling
		}
		if prev == nil || prev.Type == html.ElementNode && (blockAtoms[prev.DataAtom] || prev.DataAtom == atom.Ul || prev.DataAtom == atom.Ol || prev.DataAtom == atom.Table || prev.DataAtom == atom.Br || prev.DataAtom == atom.Img || prev.DataAtom == atom.Figure) {
			return false
		}
		left := lastRunes(nodeText(prev, ""), junctionContext)
		right := firstRunes(nodeText(n, ""), junctionContext)
		if left != "" && right != "" && (strings.Contains(page, left+" "+right) || strings.Contains(page, left+right)) {
			split = append(split, n)
		}
		return false
	})
	for _, p := range split {
		unwrapNode(p)
	}
}

// insertBefore puts node x before text node t, outside any inline
// elements that open with t, so a space is not inside the emphasis.
func insertBefore(t, block, x *html.Node) {
	at := t
	for p := t.Parent; p != nil && p != block && p.Type == html.ElementNode && firstText(p) == t; p = p.Parent {
		at = p
	}
	at.Parent.InsertBefore(x, at)
}

// firstText returns the first non-blank text node under n.
func firstText(n *html.Node) *html.Node {
	var first *html.Node
	walk(n, func(c *html.Node) bool {
		if first == nil && c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			first = c
		}
		return first == nil
	})
	return first
}

func endsWithSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

func lastRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := len(s)
	for range n {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

func firstRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
