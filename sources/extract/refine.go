package extract

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The content extractors rewrite the page's HTML to pick the article: they
// drop link targets, flatten code blocks and sometimes keep the headline.
// The functions here put back what the page had, using the original DOM,
// without changing which text was chosen.

// blockAtoms are the elements whose text forms one unit of reading.
var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Td: true, atom.Th: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Blockquote: true, atom.Dd: true, atom.Dt: true, atom.Figcaption: true,
	atom.Section: true, atom.Article: true, atom.Body: true, atom.Code: true, atom.Pre: true,
}

// nearestBlock returns the closest ancestor of n that is a block.
func nearestBlock(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && blockAtoms[p.DataAtom] {
			return p
		}
	}
	return nil
}

func hasDescendant(n *html.Node, a atom.Atom) bool {
	found := false
	walk(n, func(c *html.Node) bool {
		if c != n && c.Type == html.ElementNode && c.DataAtom == a {
			found = true
		}
		return !found
	})
	return found
}

// isBlockCode reports a <code> the extractor uses as a code block: one
// that is not inside running text.
func isBlockCode(n *html.Node) bool {
	if n.Data != "code" {
		return false
	}
	p := n.Parent
	for p != nil && p.Type == html.ElementNode && p.Data == "code" {
		p = p.Parent
	}
	if p == nil || p.Type != html.ElementNode {
		return true
	}
	switch p.DataAtom {
	case atom.P, atom.Li, atom.Td, atom.Th, atom.A, atom.Span, atom.Em, atom.Strong, atom.B, atom.I,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Dd, atom.Dt, atom.Blockquote:
		return strings.Contains(textContentRaw(n), "\n") && !hasText(p, n)
	}
	return true
}

// hasText reports whether p has text of its own outside child.
func hasText(p, child *html.Node) bool {
	for c := p.FirstChild; c != nil; c = c.NextSibling {
		if c != child && strings.TrimSpace(textContentRaw(c)) != "" {
			return true
		}
	}
	return false
}

// textContentRaw is the text of n as it is, white space included.
func textContentRaw(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

// codeRef is a snapshot of one <pre> of the page: a copy, since the page
// may be modified by the extractors, and its language hint, which may sit
// on a wrapper outside the copy.
type codeRef struct {
	pre  *html.Node
	lang string
}

// originalCode maps the collapsed text of every <pre> of the page to a
// snapshot of it.
func originalCode(root *html.Node) map[string]codeRef {
	out := map[string]codeRef{}
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Pre {
			key := collapseSpace(textContentRaw(n))
			if _, dup := out[key]; !dup && key != "" {
				lang := codeLanguage(n)
				walk(n, func(c *html.Node) bool {
					if lang == "" && c.Type == html.ElementNode && c.DataAtom == atom.Code {
						lang = codeLanguage(c)
					}
					return lang == ""
				})
				out[key] = codeRef{pre: dom.Clone(n, true), lang: lang}
			}
			return false
		}
		return true
	})
	return out
}

// restoreCode replaces each code block of the extracted tree by a copy of
// the page's own <pre> with the same text, so the code keeps its bytes and
// its language hint; code blocks with no counterpart are wrapped in <pre>.
func restoreCode(content *html.Node, pres map[string]codeRef) {
	var blocks []*html.Node
	walk(content, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Pre || isBlockCode(n)) {
			blocks = append(blocks, n)
			return false
		}
		return true
	})
	for _, b := range blocks {
		if b.Parent == nil {
			continue
		}
		if orig, ok := pres[collapseSpace(textContentRaw(b))]; ok {
			cp := dom.Clone(orig.pre, true)
			normaliseCodeLanguage(cp)
			if orig.lang != "" {
				setAttr(cp, "class", "language-"+orig.lang)
			}
			b.Parent.InsertBefore(cp, b)
			b.Parent.RemoveChild(b)
			continue
		}
		if b.DataAtom != atom.Pre {
			pre := &html.Node{Type: html.ElementNode, Data: "pre", DataAtom: atom.Pre}
			b.Parent.InsertBefore(pre, b)
			b.Parent.RemoveChild(b)
			pre.AppendChild(b)
		}
	}
}

// dropLeadingTitle removes what belongs to the page's header, not its
// body: the headline (a heading that reads as the article's title, first
// among the leading blocks, after at most pictures and short lines such
// as a kicker), the logos above it (a print header), and the standfirst
// under it, a heading that repeats the page's description or reads as a
// sentence rather than a section title.
func dropLeadingTitle(content *html.Node, title, description string) {
	titleK, descK := titleKey(title), titleKey(description)
	removedTitle := false
	lead := leadBlocks(content, 4)
	for i, b := range lead {
		if isHeading(b) {
			if t := titleKey(textContent(b)); t != "" && readsAsTitle(t, titleK, b) {
				for _, p := range lead[:i] {
					if isLogo(p) {
						p.Parent.RemoveChild(p)
					}
				}
				b.Parent.RemoveChild(b)
				removedTitle = true
			}
			break
		}
		if !isPicture(b) && CountWords(textContent(b)) > 40 {
			break
		}
	}
	for range 2 {
		h := leadingHeading(content)
		if h == nil {
			return
		}
		t := titleKey(textContent(h))
		if t == "" {
			return
		}
		isTitle := !removedTitle && readsAsTitle(t, titleK, h)
		isDek := h.DataAtom != atom.H1 && (descK != "" && (t == descK || len(t) > 20 && strings.HasPrefix(descK, t)) ||
			removedTitle && CountWords(textContent(h)) >= 12)
		switch {
		case isTitle:
			removedTitle = true
		case isDek:
		default:
			return
		}
		h.Parent.RemoveChild(h)
	}
}

// readsAsTitle reports whether a heading's key t is the title's key (or
// one begins the other), or, when the page names no title, an <h1>.
func readsAsTitle(t, titleK string, h *html.Node) bool {
	return t == titleK || titleK == "" && h.DataAtom == atom.H1 ||
		len(t) > 10 && strings.HasPrefix(titleK, t) || len(titleK) > 10 && strings.HasPrefix(t, titleK)
}

// leadBlocks returns the first n blocks of content in reading order;
// loose text counts as the block of its parent.
func leadBlocks(content *html.Node, n int) []*html.Node {
	var out []*html.Node
	walk(content, func(c *html.Node) bool {
		if len(out) >= n {
			return false
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" && c.Parent != content {
			out = append(out, c.Parent)
			return false
		}
		if c.Type != html.ElementNode {
			return true
		}
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Img, atom.Figure, atom.Picture,
			atom.Ul, atom.Ol, atom.Table, atom.Blockquote, atom.Pre:
			out = append(out, c)
			return false
		}
		return true
	})
	return out
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// isPicture reports an image, or a block holding images and no text.
func isPicture(n *html.Node) bool {
	return n.DataAtom == atom.Img || hasDescendant(n, atom.Img) && strings.TrimSpace(textContent(n)) == ""
}

// isLogo reports a picture whose image names itself a logo.
func isLogo(n *html.Node) bool {
	if !isPicture(n) {
		return false
	}
	logo := false
	walk(n, func(c *html.Node) bool {
		if c.Type == html.ElementNode && c.DataAtom == atom.Img {
			s := strings.ToLower(attr(c, "src") + " " + attr(c, "alt") + " " + attr(c, "class") + " " + attr(c, "id"))
			logo = logo || strings.Contains(s, "logo")
		}
		return !logo
	})
	return logo
}

// leadingHeading returns the heading that holds the first text of content,
// or nil when the content does not start with a heading.
func leadingHeading(content *html.Node) *html.Node {
	var first *html.Node
	walk(content, func(n *html.Node) bool {
		if first != nil {
			return false
		}
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			first = n.Parent
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Img {
			first = n
			return false
		}
		return true
	})
	for h := first; h != nil && h != content; h = h.Parent {
		switch h.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return h
		}
	}
	return nil
}

// titleKey is the comparable form of a title: lower case, letters and
// digits only.
func titleKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// keyText is the text of n as a reader sees it, white space collapsed:
// the key that matches an extracted block to the page's block.
func keyText(n *html.Node) string { return nodeText(n, "") }

// originalLists maps the text of the page's ordered lists that have a
// start or reversed attribute to the list itself.
func originalLists(root *html.Node) map[string]*html.Node {
	orig := map[string]*html.Node{}
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Ol && (hasAttr(n, "start") || hasAttr(n, "reversed")) {
			orig[matchKey(n)] = &html.Node{Type: html.ElementNode, Data: "ol", DataAtom: atom.Ol, Attr: append([]html.Attribute(nil), n.Attr...)}
		}
		return true
	})
	return orig
}

// restoreListNumbering copies start and reversed from the page's ordered
// lists to the extracted ones with the same text, which the extractor
// strips along with every other attribute.
func restoreListNumbering(content *html.Node, orig map[string]*html.Node) {
	if len(orig) == 0 {
		return
	}
	walk(content, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Ol {
			if o, ok := orig[matchKey(n)]; ok {
				for _, k := range []string{"start", "reversed"} {
					if hasAttr(o, k) {
						setAttr(n, k, attr(o, k))
					}
				}
			}
		}
		return true
	})
}

// matchKey is keyText without any white space: extractors join and split
// text nodes, so spacing is the one thing they do not keep.
func matchKey(n *html.Node) string {
	return strings.Join(strings.Fields(keyText(n)), "")
}

// removeTrackingPixels drops 1×1 and hidden images from the page before
// extraction; extractors strip the size attributes that identify them.
func removeTrackingPixels(root *html.Node) {
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Img && isTrackingPixel(n) {
			drop = append(drop, n)
		}
		return true
	})
	removeNodes(drop)
}

// fixAtoms sets DataAtom on elements created by name only, as the
// extractor does, so that atom-based checks see them for what they are.
func fixAtoms(root *html.Node) {
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == 0 {
			n.DataAtom = atom.Lookup([]byte(n.Data))
		}
		return true
	})
}

// hasBlockChild reports whether n holds a nested block (a list in a list
// item, a paragraph in a quote).
func hasBlockChild(n *html.Node) bool {
	found := false
	walk(n, func(c *html.Node) bool {
		if c != n && c.Type == html.ElementNode {
			switch c.DataAtom {
			case atom.P, atom.Ul, atom.Ol, atom.Li, atom.Div, atom.Table, atom.Pre, atom.Blockquote,
				atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				found = true
			}
		}
		return !found
	})
	return found
}

// onlySpace reports whether keyText(n) is empty: its text, scripts
// left out, is white space alone.
func onlySpace(n *html.Node) bool {
	_, all := textAll(n, true, unicode.IsSpace)
	return all
}

// removeEmptyLists drops lists left without items.
func removeEmptyLists(content *html.Node) {
	var drop []*html.Node
	walk(content, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol) && onlySpace(n) && !hasDescendant(n, atom.Img) {
			drop = append(drop, n)
			return false
		}
		return true
	})
	removeNodes(drop)
}

// bylineRe matches lines that only credit or date the article.
var bylineRe = regexp.MustCompile(`(?i)^(by|von|par|por|di|door|av)\s+\S|^(published|posted|updated|last updated|modified)\b`)

// dropMetaLines removes short blocks at the very start or end of the
// content that only hold a byline or a date ("By Jo Reporter", "Updated
// 10:43", "November 20, 2019"): they are metadata, kept as such.
func dropMetaLines(content *html.Node, author string) {
	authorK := titleKey(author)
	isMeta := func(n *html.Node) bool {
		text := keyText(n)
		if text == "" || CountWords(text) > 10 {
			return false
		}
		if bylineRe.MatchString(text) || authorK != "" && titleKey(text) == authorK {
			return true
		}
		_, isDate := ParseDate(text)
		return isDate
	}
	var blocks []*html.Node
	walk(content, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n == content {
			return true
		}
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Span, atom.H4, atom.H5, atom.H6, atom.Time, atom.Address:
			if !hasBlockChild(n) && keyText(n) != "" {
				blocks = append(blocks, n)
				return false
			}
		case atom.Pre, atom.Table, atom.Ul, atom.Ol, atom.Blockquote, atom.H1, atom.H2, atom.H3, atom.Img, atom.Figure:
			blocks = append(blocks, nil) // a real block: ends the run
			return false
		}
		return true
	})
	var drop []*html.Node
	for i := 0; i < len(blocks) && i < 3 && blocks[i] != nil && isMeta(blocks[i]); i++ {
		drop = append(drop, blocks[i])
	}
	for i := len(blocks) - 1; i >= len(drop) && i >= len(blocks)-2 && blocks[i] != nil && isMeta(blocks[i]); i-- {
		drop = append(drop, blocks[i])
	}
	removeNodes(drop)
}
