package extract

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/dom"
	"github.com/JohannesKaufmann/html-to-markdown/v2/collapse"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/marker"
	"golang.org/x/net/html"
)

// markdownBase stands in for html-to-markdown's own base plugin
// (plugin/base, MIT licence, copyright 2018 Johannes Kaufmann): the same
// removals, whitespace collapsing, trimming and unescaping, registered
// the same way, but with the escaping of text done here. The library
// escapes text a byte at a time, taking a read lock and a map look-up
// for each byte, a sixth of a feed item's conversion; here a table
// decides, and text with nothing to escape is passed on as it is. A test
// converts the same markup with both plugins and compares.
type markdownBase struct{}

// Name is the name the commonmark plugin checks for.
func (markdownBase) Name() string { return "base" }

// Init registers what plugin/base registers, in its order.
func (b markdownBase) Init(conv *converter.Converter) error {
	for _, tag := range []string{"#comment", "head", "script", "style", "link", "meta", "iframe", "noscript", "input", "textarea"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	conv.Register.PreRenderer(b.preRenderRemove, converter.PriorityEarly)
	// Late, so that collapsing runs after every other pre-renderer.
	conv.Register.PreRenderer(b.preRenderCollapse, converter.PriorityLate)
	conv.Register.TextTransformer(b.handleTextTransform, converter.PriorityStandard)
	conv.Register.PostRenderer(b.postRenderTrimContent, converter.PriorityStandard)
	conv.Register.PostRenderer(b.postRenderUnescapeContent, converter.PriorityStandard+20)
	return nil
}

func (markdownBase) preRenderRemove(ctx converter.Context, doc *html.Node) {
	var finder func(node *html.Node)
	finder = func(node *html.Node) {
		if tagType, _ := ctx.GetTagType(dom.NodeName(node)); tagType == converter.TagTypeRemove {
			dom.RemoveNode(node)
			return
		}
		// Whether a node goes depends on its name alone, so removing
		// one does not change what happens to its siblings.
		for child := node.FirstChild; child != nil; {
			next := child.NextSibling
			finder(child)
			child = next
		}
	}
	finder(doc)
	// Removing nodes can leave two text nodes side by side, which the
	// collapsing would treat wrongly.
	mergeAdjacentTextNodes(doc)
}

func mergeAdjacentTextNodes(n *html.Node) {
	var prev *html.Node
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.TextNode && prev != nil && prev.Type == html.TextNode {
			prev.Data += c.Data
			n.RemoveChild(c)
		} else {
			mergeAdjacentTextNodes(c)
			prev = c
		}
		c = next
	}
}

func (markdownBase) preRenderCollapse(ctx converter.Context, doc *html.Node) {
	collapse.Collapse(doc, &collapse.DomFuncs{
		IsBlockNode: func(node *html.Node) bool {
			tagName := dom.NodeName(node)
			if tagType, ok := ctx.GetTagType(tagName); ok {
				return tagType == converter.TagTypeBlock
			}
			return dom.NameIsBlockNode(tagName)
		},
	})
}

// characterEntityReplacer is plugin/base's: "&" is left alone.
var characterEntityReplacer = strings.NewReplacer("<", "&lt;", ">", "&gt;")

// escapedByte marks the characters the converter's plugins register as
// Markdown syntax (commonmark's and the table's "|"); each is written
// after the converter's escaping placeholder, which its unescaping turns
// into a backslash where the character would be markup and drops
// elsewhere. NUL becomes U+FFFD.
var escapedByte = func() (t [256]bool) {
	for _, c := range []byte("\\*_-+.>|$#=[]()!~`\"'") {
		t[c] = true
	}
	t[0] = true
	return t
}()

func (markdownBase) handleTextTransform(_ converter.Context, content string) string {
	content = characterEntityReplacer.Replace(content)
	i := 0
	for i < len(content) && !escapedByte[content[i]] {
		i++
	}
	if i == len(content) {
		return content
	}
	var b strings.Builder
	b.Grow(len(content) + len(content)/8)
	b.WriteString(content[:i])
	for ; i < len(content); i++ {
		c := content[i]
		switch {
		case c == 0:
			b.WriteRune(utf8.RuneError)
		case escapedByte[c]:
			b.WriteByte(marker.BytesMarkerEscaping[0])
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (markdownBase) postRenderTrimContent(_ converter.Context, result []byte) []byte {
	result = bytes.TrimSpace(result)
	result = trimConsecutiveNewlines(result)
	result = trimUnnecessaryHardLineBreaks(result)
	return result
}

func (markdownBase) postRenderUnescapeContent(ctx converter.Context, result []byte) []byte {
	return ctx.UnEscapeContent(result)
}

func trimUnnecessaryHardLineBreaks(content []byte) []byte {
	content = bytes.ReplaceAll(content, []byte("  \n\n"), []byte("\n\n"))
	content = bytes.ReplaceAll(content, []byte("  \n  \n"), []byte("\n\n"))
	content = bytes.ReplaceAll(content, []byte("  \n \n"), []byte("\n\n"))
	return content
}

// trimConsecutiveNewlines keeps at most two newlines in a row, dropping
// the spaces before any it drops (plugin/base decodes and appends a rune
// at a time; this copies the runs between spaces and newlines whole, which
// gives the same bytes: neither byte occurs inside a UTF-8 sequence).
func trimConsecutiveNewlines(in []byte) []byte {
	out := make([]byte, 0, len(in))
	newlines, spaces := 0, -1 // spaces: where the pending run of spaces starts
	for i := 0; i < len(in); {
		switch in[i] {
		case '\n':
			newlines++
			if newlines <= 2 {
				if spaces >= 0 {
					out = append(out, in[spaces:i]...)
				}
				out = append(out, '\n')
			}
			spaces = -1
			i++
		case ' ':
			if spaces < 0 {
				spaces = i
			}
			i++
		default:
			newlines = 0
			if spaces >= 0 {
				out = append(out, in[spaces:i]...)
				spaces = -1
			}
			j := i + 1
			for j < len(in) && in[j] != '\n' && in[j] != ' ' {
				j++
			}
			out = append(out, in[i:j]...)
			i = j
		}
	}
	if spaces >= 0 {
		out = append(out, in[spaces:]...)
	}
	return out
}
