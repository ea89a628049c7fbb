package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// CommonMark opens emphasis only on a delimiter that is not followed by
// punctuation when a letter stands before it, and closes it likewise, so
// "Station<em>,” </em>went" written as "Station*,”* went" shows its
// asterisks instead of emphasis. fixEmphasisEdges makes emphasis
// Markdown can express: emphasis over punctuation alone is dropped (the
// text stays), and punctuation at an edge of emphasis that touches a
// letter outside moves out of it.
func fixEmphasisEdges(root *html.Node) {
	var ems []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Pre, atom.Code:
				return false
			case atom.Em, atom.I, atom.Strong, atom.B:
				ems = append(ems, n)
			}
		}
		return true
	})
	for _, n := range ems {
		if n.Parent == nil {
			continue
		}
		if !strings.ContainsFunc(textContentRaw(n), isWordRune) {
			unwrapNode(n)
			continue
		}
		if first := n.FirstChild; first != nil && first.Type == html.TextNode && endsWithWord(n.PrevSibling) {
			if lead := len(first.Data) - len(strings.TrimLeftFunc(first.Data, isEdgePunct)); lead > 0 {
				n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: first.Data[:lead]}, n)
				first.Data = first.Data[lead:]
			}
		}
		if last := n.LastChild; last != nil && last.Type == html.TextNode && startsWithWord(n.NextSibling) {
			if trail := len(last.Data) - len(strings.TrimRightFunc(last.Data, isEdgePunct)); trail > 0 {
				n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: last.Data[len(last.Data)-trail:]}, n.NextSibling)
				last.Data = last.Data[:len(last.Data)-trail]
			}
		}
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isEdgePunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

func endsWithWord(n *html.Node) bool {
	if n == nil || n.Type != html.TextNode {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(n.Data)
	return isWordRune(r)
}

func startsWithWord(n *html.Node) bool {
	if n == nil || n.Type != html.TextNode {
		return false
	}
	r, _ := utf8.DecodeRuneInString(n.Data)
	return isWordRune(r)
}
