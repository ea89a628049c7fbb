package extract

import (
	"golang.org/x/net/html"
)

// maxParagraphCost bounds what go-trafilatura may be asked to read.
//
// Before it keeps a content subtree, go-trafilatura gathers the text of
// every <p> of the page by appending each paragraph's text to one string,
// once per selector rule it tries: its allocation grows with the number of
// paragraphs times their total text, quadratically in the page. A page of
// 1 MiB of paragraphs costs it about 1 GB of allocation and seconds of
// CPU; a hostile page of 10 MiB (the fetch cap) would cost a hundred
// times that. Real articles are far below: on the 128 benchmark pages
// the largest cost is 9.3 MiB (paragraphs × text / 2), so 64 MiB leaves
// them all to go-trafilatura (and articles up to about 250 KB of
// paragraph text), while a larger page goes to readability alone, whose
// cost grows linearly.
const maxParagraphCost = 64 << 20

// paragraphCost is the quantity go-trafilatura's paragraph gathering
// allocates in proportion to: the number of <p> elements times their
// total text, halved (each append copies what was gathered so far).
func paragraphCost(root *html.Node) int {
	count, text := 0, 0
	var walk func(n *html.Node, inP bool)
	walk = func(n *html.Node, inP bool) {
		if n.Type == html.ElementNode && n.Data == "p" {
			count++
			inP = true
		}
		if inP && n.Type == html.TextNode {
			text += len(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inP)
		}
	}
	walk(root, false)
	return count * text / 2
}
