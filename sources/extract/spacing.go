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

// wrapLooseText wraps each run of text and inline elements that sits
// directly in a container (<div>, <blockquote>, <section>…) beside other
// content in a <p>, before extraction. go-trafilatura keeps paragraphs
// but drops text that opens a <div> ahead of inline markup ("The survey
// is <em>not</em> …" lost "The survey is"), and splits the rest.
func wrapLooseText(root *html.Node) {
	var containers []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Pre, atom.Table, atom.Ul, atom.Ol, atom.P,
			atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Code:
			return false
		case atom.Div, atom.Blockquote, atom.Section, atom.Article, atom.Main, atom.Aside, atom.Center:
			containers = append(containers, n)
		}
		return true
	})
	for _, c := range containers {
		var run []*html.Node
		flush := func() {
			if runHasText(run) {
				p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
				c.InsertBefore(p, run[0])
				for _, k := range run {
					c.RemoveChild(k)
					p.AppendChild(k)
				}
			}
			run = run[:0]
		}
		for k := c.FirstChild; k != nil; k = k.NextSibling {
			if isInline(k) {
				run = append(run, k)
			} else {
				flush()
			}
		}
		flush()
	}
}

// isInline reports text and phrasing elements, what a paragraph holds.
func isInline(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		return true
	case html.ElementNode:
		switch n.DataAtom {
		case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Br, atom.Cite, atom.Code, atom.Data, atom.Dfn, atom.Em,
			atom.Font, atom.I, atom.Img, atom.Kbd, atom.Mark, atom.Q, atom.S, atom.Samp, atom.Small, atom.Span,
			atom.Strong, atom.Sub, atom.Sup, atom.Time, atom.U, atom.Var, atom.Wbr, atom.Del, atom.Ins, atom.Strike, atom.Tt:
			return !hasBlockChild(n)
		}
	}
	return false
}

// runHasText reports whether a run of inline nodes is a sentence the
// extractor would damage: text of its own beside inline markup with
// text, a dozen words or more. Short loose text (a date, "Share", a
// label) stays as it is: wrapped, the extractor would take it for a
// paragraph of the article.
func runHasText(run []*html.Node) bool {
	ownText, markup := false, false
	var text strings.Builder
	for _, n := range run {
		t := textContentRaw(n)
		text.WriteString(t)
		if strings.TrimSpace(t) == "" {
			continue
		}
		if n.Type == html.TextNode {
			ownText = true
		} else {
			markup = true
		}
	}
	return ownText && markup && CountWords(text.String()) >= minLooseWords
}

// minLooseWords is the length from which loose text is a sentence.
const minLooseWords = 12
