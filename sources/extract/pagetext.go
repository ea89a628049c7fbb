package extract

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageText is what the refinements need to know of the page's text,
// read before the extractors rewrite the page.
type pageText struct {
	// lines is the visible text, white space collapsed, with a line break
	// between blocks: a junction of two texts found on one line was
	// written together.
	lines string
	// flat is the visible text with white space collapsed and nothing
	// between blocks: the keyText of any block of the page is a
	// substring of it, at the block's place.
	flat string
	// links are the page's links in document order, as spans of flat.
	links []pageLink
	// blockStart and blockEnd are the offsets in flat where a block's
	// text starts and ends.
	blockStart, blockEnd map[int]bool
}

type pageLink struct {
	start, end int
	href       string
}

// readPageText walks the page once.
func readPageText(root *html.Node) *pageText {
	pt := &pageText{blockStart: map[int]bool{}, blockEnd: map[int]bool{}}
	var lines, flat strings.Builder
	lineSpace, flatSpace := false, false
	// waiting are the spans whose start is the next character written.
	var waiting []*int
	var rec func(*html.Node, bool)
	rec = func(n *html.Node, inLink bool) {
		switch n.Type {
		case html.TextNode:
			for _, r := range n.Data {
				if unicode.IsSpace(r) {
					lineSpace, flatSpace = true, true
					continue
				}
				if lineSpace && lines.Len() > 0 {
					lines.WriteByte(' ')
				}
				if flatSpace && flat.Len() > 0 {
					flat.WriteByte(' ')
				}
				lineSpace, flatSpace = false, false
				for _, w := range waiting {
					*w = flat.Len()
				}
				waiting = waiting[:0]
				lines.WriteRune(r)
				flat.WriteRune(r)
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head:
				return
			}
		}
		block := n.Type == html.ElementNode && (blockAtoms[n.DataAtom] || n.DataAtom == atom.Br || n.DataAtom == atom.Tr || n.DataAtom == atom.Ul || n.DataAtom == atom.Ol || n.DataAtom == atom.Table)
		if block {
			newline(&lines)
			lineSpace = false
		}
		start := -1
		if block && blockAtoms[n.DataAtom] {
			waiting = append(waiting, &start)
		}
		link := !inLink && n.Type == html.ElementNode && n.DataAtom == atom.A && usableHref(attr(n, "href"))
		linkStart := -1
		if link {
			waiting = append(waiting, &linkStart)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c, inLink || link)
		}
		if link {
			pt.links = appendLink(pt.links, linkStart, flat.Len(), strings.TrimSpace(attr(n, "href")))
		}
		if start >= 0 {
			pt.blockStart[start] = true
			pt.blockEnd[flat.Len()] = true
		}
		waiting = dropWaiting(waiting, &start, &linkStart)
		if block {
			newline(&lines)
			lineSpace = false
		}
	}
	rec(root, false)
	pt.lines, pt.flat = lines.String(), flat.String()
	return pt
}

// newline ends a line of b, once.
func newline(b *strings.Builder) {
	if s := b.String(); s != "" && s[len(s)-1] != '\n' {
		b.WriteByte('\n')
	}
}

func usableHref(href string) bool {
	href = strings.TrimSpace(href)
	return href != "" && !strings.HasPrefix(href, "#") && !strings.HasPrefix(strings.ToLower(href), "javascript:")
}

func appendLink(links []pageLink, start, end int, href string) []pageLink {
	if start < 0 || end <= start {
		return links // a link without text
	}
	return append(links, pageLink{start: start, end: end, href: href})
}

// dropWaiting removes spans that closed before any character came.
func dropWaiting(waiting []*int, spans ...*int) []*int {
	out := waiting[:0]
	for _, w := range waiting {
		keep := true
		for _, s := range spans {
			if w == s {
				keep = false
			}
		}
		if keep {
			out = append(out, w)
		}
	}
	return out
}

// maxLocateTries bounds the occurrences of a block's text examined for
// one that is a whole block of the page.
const maxLocateTries = 64

// locate finds the block of the page whose text is key, at or after
// offset from, and returns its offset in flat, or -1.
func (pt *pageText) locate(key string, from int) int {
	if key == "" {
		return -1
	}
	for try := 0; try < maxLocateTries && from <= len(pt.flat); try++ {
		i := strings.Index(pt.flat[from:], key)
		if i < 0 {
			return -1
		}
		pos := from + i
		if pt.blockStart[pos] && pt.blockEnd[pos+len(key)] {
			return pos
		}
		from = pos + 1
	}
	return -1
}

// linksIn returns the links that lie within flat[start:end].
func (pt *pageText) linksIn(start, end int) []pageLink {
	i := sort.Search(len(pt.links), func(k int) bool { return pt.links[k].start >= start })
	var out []pageLink
	for ; i < len(pt.links) && pt.links[i].start < end; i++ {
		if pt.links[i].end <= end {
			out = append(out, pt.links[i])
		}
	}
	return out
}
