package extract

import (
	"unicode/utf8"

	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// fallbackCouldWin reports whether go-trafilatura's fallback comparison
// could prefer a candidate of at most maxLen characters over res. The
// comparison (candidateIsUsable upstream) takes a candidate when it is more
// than twice as long as the extraction, or, in the borderline band, when
// the extraction has no paragraph text or more tables than paragraphs and
// the candidate is longer than twice the minimum size; all but the length
// rule look at the extraction only. Answering it here lets readability be
// skipped, with the same outcome, on most pages.
func fallbackCouldWin(res *trafilatura.ExtractResult, maxLen int) bool {
	minSize := trafilatura.DefaultConfig().MinExtractedSize
	lenExtracted := utf8.RuneCountInString(res.ContentText)
	if lenExtracted == 0 || maxLen > 2*lenExtracted {
		return true
	}
	if mayBeBaseline(res.ContentNode) {
		// The library's last resort replaced an extraction shorter than
		// minSize, whose length is not known here.
		return true
	}
	if maxLen <= 2*minSize {
		return false
	}
	tables, paragraphs, paragraphText := 0, 0, false
	walk(res.ContentNode, func(n *html.Node) bool {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Table:
				tables++
			case atom.P:
				paragraphs++
				if !paragraphText && textContent(n) != "" {
					paragraphText = true
				}
			}
		}
		return true
	})
	return tables > paragraphs || !paragraphText
}

// mayBeBaseline reports whether body has the shape of go-trafilatura's
// baseline rescue: only paragraphs of bare text. A real extraction of that
// shape is possible too; the answer errs toward running the fallback.
func mayBeBaseline(body *html.Node) bool {
	if body == nil {
		return true
	}
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom != atom.P {
			return false
		}
		for g := c.FirstChild; g != nil; g = g.NextSibling {
			if g.Type != html.TextNode {
				return false
			}
		}
	}
	return true
}

// textLenBound is an upper bound on the length of any text an extractor
// can take from the page's <body>, counted as go-trafilatura counts: the
// runes of every text node plus one separator each. Readability cannot
// return more.
func textLenBound(root *html.Node) int {
	n := 0
	walk(root, func(c *html.Node) bool {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Head || c.DataAtom == atom.Script || c.DataAtom == atom.Style) {
			return false
		}
		if c.Type == html.TextNode {
			n += utf8.RuneCountInString(c.Data) + 1
		}
		return true
	})
	return n + 1
}
