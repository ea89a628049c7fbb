package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockText renders the visible text of n with one line per block
// (paragraph, heading, list item, table row…) and code kept as it is.
func blockText(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node, bool)
	rec = func(n *html.Node, pre bool) {
		switch n.Type {
		case html.TextNode:
			if pre {
				b.WriteString(n.Data)
				return
			}
			t := collapseSpace(n.Data)
			if t == "" {
				if n.Data != "" {
					b.WriteByte(' ')
				}
				return
			}
			if strings.HasPrefix(strings.TrimLeft(n.Data, "\n\t\r"), " ") || n.Data[0] == '\n' {
				b.WriteByte(' ')
			}
			b.WriteString(t)
			last := n.Data[len(n.Data)-1]
			if last == ' ' || last == '\n' || last == '\t' {
				b.WriteByte(' ')
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				return
			case atom.Br:
				b.WriteByte('\n')
				return
			}
		}
		block := n.Type == html.ElementNode && (blockAtoms[n.DataAtom] || n.DataAtom == atom.Tr || n.DataAtom == atom.Ul || n.DataAtom == atom.Ol || n.DataAtom == atom.Table || n.DataAtom == atom.Hr || n.DataAtom == atom.Figure)
		if block {
			b.WriteByte('\n')
		}
		inPre := pre || n.Type == html.ElementNode && n.DataAtom == atom.Pre
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c, inPre)
			if n.Type == html.ElementNode && (n.DataAtom == atom.Tr) && c.NextSibling != nil {
				b.WriteByte('\t')
			}
		}
		if block {
			b.WriteByte('\n')
		}
	}
	rec(n, false)
	// The lines are trimmed and joined in one pass, without a slice of
	// them.
	all := b.String()
	var out strings.Builder
	out.Grow(len(all))
	for l := range strings.SplitSeq(all, "\n") {
		if l = strings.TrimRight(strings.TrimLeft(l, " "), " \t"); strings.TrimSpace(l) != "" {
			if out.Len() > 0 {
				out.WriteByte('\n')
			}
			out.WriteString(l)
		}
	}
	return out.String()
}
