package extract

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// converters hands each conversion a converter of its own. Building one
// registers every plugin's renderers and costs about as much as
// converting a short feed summary, so they are kept and reused. One
// converter would be safe to share, but it takes a read lock for every
// byte of text it escapes: with one lock word written by every core
// that converts at once, two workers converting together spent 0.29 ms
// of CPU an item where one alone spent 0.17 (BenchmarkMarkdownTogether);
// with a converter each, 0.24 and 0.16.
var converters = sync.Pool{New: func() any { return newConverter() }}

// newConverter builds the HTML→Markdown converter: CommonMark with fenced
// code blocks, GFM tables.
func newConverter() *converter.Converter {
	conv := converter.NewConverter(
		converter.WithPlugins(
			base.NewBasePlugin(),
			commonmark.NewCommonmarkPlugin(
				commonmark.WithCodeBlockFence("```"),
				commonmark.WithHeadingStyle(commonmark.HeadingStyleATX),
				commonmark.WithBulletListMarker("-"),
			),
			table.NewTablePlugin(
				table.WithSpanCellBehavior(table.SpanBehaviorMirror),
				// By default the plugin gives up on a table with a line
				// break in a cell and flattens it into run-together text;
				// the break is kept as <br /> in the cell instead.
				table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
				table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
			),
		),
	)
	registerTextEscaping(conv)
	registerSafeLinks(conv)
	return conv
}

// FragmentToMarkdown converts an HTML fragment, such as an RSS
// content:encoded body, to Markdown. Relative links and images are resolved
// against baseURL. A fragment that holds no HTML markup at all but already
// reads as Markdown is returned as it is, so `# Heading` is never turned
// into `\# Heading`; a fragment whose HTML was entity-escaped once too often
// (`&lt;p&gt;…`) is unescaped once before conversion.
func FragmentToMarkdown(fragment string, baseURL string) (string, error) {
	md, _, err := convertFragment(fragment, baseURL)
	return md, err
}

// FromFragment converts a feed entry's HTML fragment and measures it the
// way Extract measures a page, so every tier of the extraction cascade is
// judged by one yardstick. Method is "fragment".
func FromFragment(fragment string, baseURL string) (*Document, error) {
	return FragmentDocument(fragment, baseURL, Options{})
}

// FragmentDocument is FromFragment with options: of them only
// SkipTokenCounts applies to a fragment (nothing is extracted from it).
func FragmentDocument(fragment string, baseURL string, opts Options) (*Document, error) {
	md, text, err := convertFragment(fragment, baseURL)
	if err != nil {
		return nil, err
	}
	d := &Document{Markdown: md, Text: text, Method: "fragment"}
	d.Stats = computeStats(fragment, d, !opts.SkipTokenCounts)
	return d, nil
}

// convertFragment returns a fragment's Markdown and its visible text.
func convertFragment(fragment string, baseURL string) (md, text string, err error) {
	if plain, ok := plainSentence(fragment); ok {
		return plain, plain, nil
	}
	return convertParsed(fragment, baseURL)
}

// convertParsed is convertFragment without the shortcut for plain prose.
func convertParsed(fragment string, baseURL string) (md, text string, err error) {
	nodes, err := parseFragment(fragment)
	if err != nil {
		return "", "", fmt.Errorf("parse html fragment: %w", err)
	}
	if !hasElement(nodes) {
		plain := textOf(nodes)
		switch {
		case strings.TrimSpace(plain) == "":
			return "", "", nil
		case looksLikeHTML(plain):
			// Escaped twice upstream: the text is markup. One level only.
			nodes, err = parseFragment(plain)
			if err != nil {
				return "", "", fmt.Errorf("parse unescaped html fragment: %w", err)
			}
		case looksLikeMarkdown(plain) && markdownIsSafe(plain):
			plain = strings.TrimSpace(plain)
			return plain, plain, nil
		case looksLikeMarkdown(plain):
			nodes = markdownNodes(plain, nodes)
		}
	}
	root := fragmentRoot(nodes)
	var b *url.URL
	if u, err := url.Parse(strings.TrimSpace(baseURL)); err == nil && u.IsAbs() {
		b = u
	}
	// Converting cleans the tree (scripts, hidden and tracking elements go),
	// so the text is read after it.
	md, err = nodeToMarkdown(root, b)
	return md, blockText(root), err
}

// plainByte marks the bytes of plain prose that neither the HTML parser
// nor the converter treats specially, nor CommonMark reads as markup
// anywhere on a line that starts with a letter: letters, digits, spaces
// and common punctuation. Some are among the converter's escaped
// characters, but it keeps the escape only where they would be markup:
// "." and ")" after a line's leading digits, "-", "+" and "=" at a line's
// start, "!" before "[".
var plainByte = func() (t [256]bool) {
	copy(t[:], asciiWordByte[:])
	for _, c := range []byte(" ,.;:?%/@-'\"()!+=$") {
		t[c] = true
	}
	return t
}()

// plainSentence returns what the conversion gives for a fragment that is
// one line of plain prose starting with a letter (feeds often send a
// summary so): its words joined by single spaces, as Markdown and as
// text. Beyond the bytes of plainByte it takes letters and digits of any
// script and typographic quotes, dashes and ellipses, none of which the
// parser, the converter or the text extraction treats specially. It
// reports false for anything else, which is converted in full; a test
// holds it to the full conversion.
func plainSentence(fragment string) (string, bool) {
	if fragment == "" {
		return "", false
	}
	if r, _ := utf8.DecodeRuneInString(fragment); !asciiLetter(fragment[0]) && (r < utf8.RuneSelf || !unicode.IsLetter(r)) {
		return "", false
	}
	for i := 0; i < len(fragment); {
		if c := fragment[i]; c < utf8.RuneSelf {
			if !plainByte[c] {
				return "", false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(fragment[i:])
		if r == utf8.RuneError || !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(plainMarks, r) {
			return "", false
		}
		i += size
	}
	if !strings.Contains(fragment, "  ") && fragment[len(fragment)-1] != ' ' {
		return fragment, true
	}
	return strings.Join(strings.Fields(fragment), " "), true
}

// plainMarks are the non-ASCII punctuation marks plainSentence takes.
const plainMarks = "’‘“”–—…«»¡¿€£"

// nodeToMarkdown cleans root (in place) and converts it.
func nodeToMarkdown(root *html.Node, base *url.URL) (string, error) {
	cleanForMarkdown(root, base)
	var opts []converter.ConvertOptionFunc
	if base != nil {
		opts = append(opts, converter.WithDomain(base.String()))
	}
	conv := converters.Get().(*converter.Converter)
	out, err := conv.ConvertNode(root, opts...)
	converters.Put(conv)
	if err != nil {
		return "", fmt.Errorf("convert html to markdown: %w", err)
	}
	return tidyMarkdown(restoreSpecials(string(out))), nil
}

// fragmentRoot puts parsed fragment nodes under one <div>.
func fragmentRoot(nodes []*html.Node) *html.Node {
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return root
}

func parseFragment(s string) ([]*html.Node, error) {
	ctx := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	return html.ParseFragment(strings.NewReader(s), ctx)
}

func hasElement(nodes []*html.Node) bool {
	for _, n := range nodes {
		found := false
		walk(n, func(c *html.Node) bool {
			if c.Type == html.ElementNode {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

func textOf(nodes []*html.Node) string {
	var b strings.Builder
	for _, n := range nodes {
		walk(n, func(c *html.Node) bool {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
			return true
		})
	}
	return b.String()
}

var (
	htmlTagRe = regexp.MustCompile(`(?i)<(p|div|h[1-6]|a\s+href|br|ul|ol|li|img\s|strong|em|blockquote|pre|code|table|span)\b[^>]*>`)
	mdLineRe  = regexp.MustCompile("(?m)^(#{1,6} \\S|[-*+] \\S|\\d+\\. \\S|> |```|    \\S)")
	mdInline  = regexp.MustCompile(`\[[^\]\n]+\]\([^)\s]+\)|\*\*[^*\n]+\*\*|` + "`[^`\\n]+`")
)

func looksLikeHTML(s string) bool { return htmlTagRe.MatchString(s) }

func looksLikeMarkdown(s string) bool { return mdLineRe.MatchString(s) || mdInline.MatchString(s) }

// removable elements never carry article text worth keeping as Markdown.
var removable = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Svg: true, atom.Canvas: true,
	atom.Form: true, atom.Input: true, atom.Button: true, atom.Select: true, atom.Textarea: true,
	atom.Link: true, atom.Meta: true, atom.Head: true, atom.Title: true, atom.Base: true,
	atom.Dialog: true, atom.Map: true,
}

// cleanForMarkdown removes what must not reach Markdown (scripts, styles,
// hidden elements, tracking pixels, empty links), repairs lazy-loaded
// images, and normalises code-block language hints so the converter emits
// them as fence info strings.
func cleanForMarkdown(root *html.Node, base *url.URL) {
	var drop, unwrap []*html.Node
	walk(root, func(n *html.Node) bool {
		switch n.Type {
		case html.CommentNode:
			drop = append(drop, n)
			return false
		case html.ElementNode:
		default:
			return true
		}
		if n != root && (removable[n.DataAtom] || n.Data == "math" || isHidden(n)) {
			drop = append(drop, n)
			return false
		}
		switch n.DataAtom {
		case atom.Img:
			if !fixImage(n, base) {
				drop = append(drop, n)
			}
			return false
		case atom.Picture:
			// The <img> inside carries the picture; <source> would be rendered as nothing anyway.
		case atom.A:
			href := strings.TrimSpace(attr(n, "href"))
			low := strings.ToLower(href)
			if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(low, "javascript:") {
				unwrap = append(unwrap, n)
			} else if !hasVisibleContent(n) {
				drop = append(drop, n)
				return false
			}
		case atom.Pre:
			normaliseCodeLanguage(n)
			return false
		case atom.Td, atom.Th:
			clampSpan(n, "colspan")
			clampSpan(n, "rowspan")
		}
		// Inline styles and event handlers mean nothing in Markdown.
		kept := n.Attr[:0]
		for _, a := range n.Attr {
			if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
				continue
			}
			kept = append(kept, a)
		}
		n.Attr = kept
		return true
	})
	removeNodes(drop)
	for _, n := range unwrap {
		unwrapNode(n)
	}
	cleanTables(root)
	italicCaptions(root)
	dropShareLinks(root)
	dropInvisibleBlocks(root)
	fixEmphasisEdges(root)
}

// maxCellSpan bounds colspan and rowspan: the table renderer copies a
// spanned cell into every slot it covers, so a hostile colspan=100000
// would cost minutes and gigabytes.
const maxCellSpan = 20

func clampSpan(n *html.Node, key string) {
	if v, err := strconv.Atoi(strings.TrimSpace(attr(n, key))); err == nil && v > maxCellSpan {
		setAttr(n, key, strconv.Itoa(maxCellSpan))
	}
}

// unwrapNode replaces n by its children.
func unwrapNode(n *html.Node) {
	p := n.Parent
	if p == nil {
		return
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		n.RemoveChild(c)
		p.InsertBefore(c, n)
		c = next
	}
	p.RemoveChild(n)
}

// isHidden reports elements the page hides from readers.
func isHidden(n *html.Node) bool {
	if hasAttr(n, "hidden") || strings.EqualFold(attr(n, "aria-hidden"), "true") && n.DataAtom != atom.Span && n.DataAtom != atom.I {
		return true
	}
	style := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
}

// hasVisibleContent reports whether a link shows text or an image.
func hasVisibleContent(n *html.Node) bool {
	found := false
	walk(n, func(c *html.Node) bool {
		if found {
			return false
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			found = true
		}
		if c.Type == html.ElementNode && c.DataAtom == atom.Img && attr(c, "src") != "" && !isTrackingPixel(c) {
			found = true
		}
		return !found
	})
	return found
}

// fixImage picks the real source of lazy-loaded images and reports whether
// the image is worth keeping (it is not a tracking pixel or a placeholder).
func fixImage(n *html.Node, base *url.URL) bool {
	if isTrackingPixel(n) {
		return false
	}
	src := strings.TrimSpace(attr(n, "src"))
	if src == "" || strings.HasPrefix(src, "data:") || strings.Contains(strings.ToLower(src), "placeholder") || strings.Contains(strings.ToLower(src), "blank.gif") {
		for _, k := range []string{"data-src", "data-lazy-src", "data-original", "data-url", "data-srcset", "srcset"} {
			if v := strings.TrimSpace(attr(n, k)); v != "" && !strings.HasPrefix(v, "data:") {
				if strings.HasSuffix(k, "srcset") {
					v = firstSrcsetURL(v)
				}
				if v != "" {
					src = v
					break
				}
			}
		}
	}
	if src == "" || strings.HasPrefix(src, "data:") {
		return false
	}
	setAttr(n, "src", src)
	return true
}

// isTrackingPixel reports 1×1 (or smaller) images and hidden beacons.
func isTrackingPixel(n *html.Node) bool {
	w, werr := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(attr(n, "width")), "px"))
	h, herr := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(attr(n, "height")), "px"))
	if (werr == nil && w <= 1) || (herr == nil && h <= 1) {
		return true
	}
	style := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
	if strings.Contains(style, "width:1px") && strings.Contains(style, "height:1px") || strings.Contains(style, "display:none") {
		return true
	}
	return false
}

func firstSrcsetURL(srcset string) string {
	first := strings.TrimSpace(strings.Split(srcset, ",")[0])
	if f := strings.Fields(first); len(f) > 0 {
		return f[0]
	}
	return ""
}

var langClassRe = regexp.MustCompile(`(?i)^(?:language|lang|highlight|hljs|brush|sourcecode|source)[-:_]([a-z0-9+#._-]+)$`)

// codeLanguage finds a language hint on a code element or its wrappers:
// class="language-go", "lang-go", "highlight-go", "brush: go", or a
// data-lang attribute.
func codeLanguage(n *html.Node) string {
	for p, depth := n, 0; p != nil && depth < 3; p, depth = p.Parent, depth+1 {
		if p.Type != html.ElementNode {
			continue
		}
		for _, k := range []string{"data-lang", "data-language", "lang"} {
			if v := strings.TrimSpace(attr(p, k)); v != "" && (p.DataAtom == atom.Pre || p.DataAtom == atom.Code || k != "lang") {
				return strings.ToLower(v)
			}
		}
		cls := strings.ReplaceAll(attr(p, "class"), "brush: ", "brush:")
		for _, c := range strings.Fields(cls) {
			if m := langClassRe.FindStringSubmatch(c); m != nil {
				lang := strings.ToLower(m[1])
				switch lang {
				case "source", "text", "plain", "plaintext", "none", "nohighlight":
					continue
				}
				return lang
			}
		}
	}
	return ""
}

// normaliseCodeLanguage puts the language hint where the converter reads
// it (class="language-X" on the <pre>/<code>) and nothing else there.
func normaliseCodeLanguage(pre *html.Node) {
	lang := codeLanguage(pre)
	walk(pre, func(c *html.Node) bool {
		if c.Type == html.ElementNode && c.DataAtom == atom.Code && lang == "" {
			lang = codeLanguage(c)
		}
		return true
	})
	walk(pre, func(c *html.Node) bool {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Code || c.DataAtom == atom.Pre) {
			kept := c.Attr[:0]
			for _, a := range c.Attr {
				if a.Key != "class" {
					kept = append(kept, a)
				}
			}
			c.Attr = kept
		}
		return true
	})
	if lang != "" {
		setAttr(pre, "class", "language-"+lang)
	}
}

// listEndMarker is what the converter puts between two adjacent lists so
// they do not merge into one.
const listEndMarker = "<!--THE END-->"

var (
	orderedItemRe = regexp.MustCompile(`^\d+[.)] `)
	bulletItemRe  = regexp.MustCompile(`^[-*+] `)
)

// tidyMarkdown trims the converter's output and drops list separators
// that are not needed: an ordered list next to a bullet list never merges
// with it. Trailing spaces stay: two of them are a hard line break, and
// code blocks keep their bytes.
func tidyMarkdown(md string) string {
	// A line break in a table cell is written "  <br />" (the converter's
	// hard break, then the table plugin's replacement of the newline);
	// the spaces mean nothing there.
	md = strings.ReplaceAll(md, "  <br />", "<br />")
	for strings.Contains(md, "<br /><br />") {
		md = strings.ReplaceAll(md, "<br /><br />", "<br />")
	}
	if strings.Contains(md, listEndMarker) {
		lines := strings.Split(md, "\n")
		out := lines[:0:0]
		skipBlank := false
		for i, l := range lines {
			if strings.TrimSpace(l) == listEndMarker && !sameListKind(lines[:i], lines[i+1:]) {
				// The blank line before it stays as the list break.
				skipBlank = true
				continue
			}
			if skipBlank && strings.TrimSpace(l) == "" {
				skipBlank = false
				continue
			}
			skipBlank = false
			out = append(out, l)
		}
		md = strings.Join(out, "\n")
	}
	return strings.TrimLeft(strings.TrimRight(md, " \t\n"), "\n")
}

// sameListKind reports whether the top-level list ending before and the
// one starting after a separator are both ordered or both bullets.
func sameListKind(before, after []string) bool {
	kind := func(l string) int {
		switch {
		case orderedItemRe.MatchString(l):
			return 1
		case bulletItemRe.MatchString(l):
			return 2
		}
		return 0
	}
	prev, next := 0, 0
	for i := len(before) - 1; i >= 0 && prev == 0; i-- {
		prev = kind(before[i])
	}
	for _, l := range after {
		if strings.TrimSpace(l) != "" {
			next = kind(l)
			break
		}
	}
	return prev == next
}
