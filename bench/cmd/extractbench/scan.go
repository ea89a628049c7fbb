package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/feedpoller/feedpoller/internal/benchpages"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// The defects a reader of the Markdown notices, each found by structure:
// what the Markdown says against what the page's HTML said.
const (
	defectGlued       = "spaces lost around inline element"
	defectTextChanged = "Markdown reads differently from the extracted HTML"
	defectTable       = "table flattened into run-together text"
	defectEscape      = "broken emphasis escaping"
	defectLink        = "link on words the page did not link"
	defectCut         = "text cut after an element"
	defectTfoot       = "table footer repeating the header"
	defectEmptyTable  = "empty layout table"
	defectInvisible   = "invisible-character paragraph"
	defectShare       = "share link"
	defectDangling    = "heading with nothing under it at the end"
	defectHeader      = "page header (headline or logo) kept in the body"
)

type finding struct {
	kind, detail string
}

// scanPage checks one page's extraction.
func scanPage(pageHTML []byte, pageURL string, doc *extract.Document) []finding {
	var out []finding
	add := func(kind, format string, args ...any) {
		out = append(out, finding{kind, fmt.Sprintf(format, args...)})
	}
	md := doc.Markdown
	root, err := html.Parse(bytes.NewReader(pageHTML))
	if err != nil {
		add(defectTextChanged, "page does not parse: %v", err)
		return out
	}
	pageVisible := strings.Join(strings.Fields(nodeText(root)), " ")
	for _, g := range gluedInline(md, pageVisible) {
		add(defectGlued, "%s", g)
	}
	if diff := textDiff(md, doc.Text); diff != "" {
		// Asterisks lost, gained or shown where the page has none are
		// emphasis the Markdown broke.
		if strings.Count(squeeze(renderedText(md)), "*") != strings.Count(squeeze(doc.Text), "*") || strings.Contains(diff, "*") {
			add(defectEscape, "%s", diff)
		} else {
			add(defectTextChanged, "%s", diff)
		}
	}
	text := renderedText(md)
	for _, key := range flattenedTables(root) {
		if strings.Contains(text, key) {
			add(defectTable, "%q", key)
		}
	}
	for _, l := range extraLinks(md, root, pageURL) {
		add(defectLink, "%s", l)
	}
	for _, line := range strings.Split(md, "\n") {
		if cutLineRe.MatchString(line) {
			add(defectCut, "%q", tail(line, 60))
		}
	}
	tableChecks(md, add)
	for _, p := range strings.Split(md, "\n\n") {
		if p = strings.TrimSpace(p); p != "" && strings.TrimFunc(p, invisible) == "" {
			add(defectInvisible, "%q", p)
		}
	}
	for _, m := range shareLinkRe.FindAllString(md, -1) {
		add(defectShare, "%s", m)
	}
	blocks := strings.Split(strings.TrimSpace(md), "\n\n")
	if last := blocks[len(blocks)-1]; strings.HasPrefix(last, "#") {
		add(defectDangling, "%q", last)
	}
	if first := blocks[0]; logoRe.MatchString(first) {
		add(defectHeader, "logo %q", tail(first, 80))
	}
	if t := doc.Metadata.Title; t != "" {
		for _, b := range blocks[:min(3, len(blocks))] {
			if strings.HasPrefix(b, "#") && strings.EqualFold(strings.TrimSpace(strings.TrimLeft(b, "#")), strings.TrimSpace(t)) {
				add(defectHeader, "headline %q", b)
			}
		}
	}
	return out
}

var (
	// A line that stops at an opening bracket: the rest of the sentence
	// was lost with an element the extractor did not know.
	cutLineRe = regexp.MustCompile(`(^|\s)[(\[]$`)
	// Share endpoints of the big networks, by the form of their URLs.
	shareLinkRe = regexp.MustCompile(`\]\(https?://(?:www\.|m\.|api\.|web\.)?(?:facebook\.com/sharer|facebook\.com/share\.php|twitter\.com/(?:intent/tweet|share)|x\.com/intent|wa\.me/|whatsapp\.com/send|linkedin\.com/(?:shareArticle|sharing)|pinterest\.com/pin/create|reddit\.com/submit|t\.me/share|telegram\.me/share)[^)]*\)`)
	logoRe      = regexp.MustCompile(`(?i)^\[?!\[[^\]]*\]\([^)]*logo[^)]*\)|^\[?!\[[^\]]*logo[^\]]*\]`)
)

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r == '\u200b' || r == '\u2060' || r == '\ufeff'
}

// gluedInline finds emphasis and links whose words run into the words
// beside them, "**will**appreciate", "is*this*sentence", unless the page
// itself reads that way (a link over part of a word).
func gluedInline(md, page string) []string {
	var out []string
	for _, m := range gluedRe.FindAllStringIndex(md, -1) {
		visible := strings.ReplaceAll(mdLinkTextRe.ReplaceAllString(md[m[0]:m[1]], "$1"), "*", "")
		if strings.Contains(page, strings.TrimSpace(visible)) {
			continue
		}
		out = append(out, fmt.Sprintf("%q", md[max(0, m[0]-20):min(len(md), m[1]+20)]))
	}
	return out
}

var mdLinkTextRe = regexp.MustCompile(`\[([^\]\n]*)\]\([^)\s]*\)`)

// gluedRe: a letter or digit, emphasis markers, a letter or digit, then
// the closing markers: an opening glued to the word before it; and the
// same for a closing glued to the word after it. Intraword emphasis is
// legal CommonMark but pages never write it.
var gluedRe = regexp.MustCompile(`[\p{L}\p{N}]\*{1,3}[\p{L}\p{N}][^*\n]*?[^\s*\\]\*{1,3}(?:[\s\p{P}]|$)|(?:^|[\s\p{P}])\*{1,3}[^\s*][^*\n]*?[\p{L}\p{N}]\*{1,3}[\p{L}\p{N}]|[\p{L}\p{N}]\[[^\]\n]+\]\([^)\s]+\)|\[[^\]\n]+\]\([^)\s]+\)[\p{L}\p{N}]`)

// renderedText is what a reader of the Markdown sees, as text.
func renderedText(md string) string {
	var buf bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &buf); err != nil {
		return ""
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		return ""
	}
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.P || n.DataAtom == atom.Li || n.DataAtom == atom.Td || n.DataAtom == atom.Th || n.DataAtom == atom.Br) {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
		if n.Type == html.ElementNode && n.DataAtom != atom.A && n.DataAtom != atom.Em && n.DataAtom != atom.Strong && n.DataAtom != atom.Code {
			b.WriteByte('\n')
		}
	}
	rec(doc)
	return b.String()
}

// textDiff compares the text a reader of the Markdown sees with the text
// of the extracted HTML, white space aside (spacing has its own check),
// and describes the first difference, or returns "" when they agree.
func textDiff(md, htmlText string) string {
	got, want := []rune(squeeze(renderedText(md))), []rune(squeeze(htmlText))
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	if i == len(got) && i == len(want) {
		return ""
	}
	ctx := func(rs []rune) string { return string(rs[max(0, i-30):min(len(rs), i+30)]) }
	return fmt.Sprintf("Markdown reads %q, HTML %q", ctx(got), ctx(want))
}

func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || invisible(r) {
			return -1
		}
		return r
	}, s)
}

// flattenedTables returns, for each data table of the page (two or more
// rows and columns), its first row's cell texts run together, which is
// how a table the converter skipped reads: "FlagDefaultMeaning".
func flattenedTables(root *html.Node) []string {
	var keys []string
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			var rows [][]string
			var rowsOf func(*html.Node)
			rowsOf = func(c *html.Node) {
				for k := c.FirstChild; k != nil; k = k.NextSibling {
					switch {
					case k.Type != html.ElementNode:
					case k.DataAtom == atom.Tr:
						var cells []string
						for td := k.FirstChild; td != nil; td = td.NextSibling {
							if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
								cells = append(cells, strings.Join(strings.Fields(nodeText(td)), " "))
							}
						}
						rows = append(rows, cells)
					case k.DataAtom == atom.Thead || k.DataAtom == atom.Tbody || k.DataAtom == atom.Tfoot:
						rowsOf(k)
					}
				}
			}
			rowsOf(n)
			if len(rows) >= 2 && len(rows[0]) >= 2 && !slices.Contains(rows[0], "") {
				keys = append(keys, strings.Join(rows[0], ""))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	return keys
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

var mdLinkRe = regexp.MustCompile(`(?:^|[^!])\[([^\]\n]+)\]\(([^)\s]+)\)`)

// extraLinks finds links the Markdown has more often than the page: a
// link re-attached to every occurrence of its words.
func extraLinks(md string, root *html.Node, pageURL string) []string {
	type key struct{ text, href string }
	have := map[key]int{}
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			for _, a := range n.Attr {
				if a.Key == "href" {
					have[key{strings.Join(strings.Fields(nodeText(n)), " "), strings.TrimSpace(a.Val)}]++
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	// The Markdown's links are absolute; count the page's by text alone
	// when the URL differs only by being resolved.
	byText := map[string]int{}
	for k, n := range have {
		byText[k.text] += n
	}
	used := map[key]int{}
	var out []string
	for _, m := range mdLinkRe.FindAllStringSubmatch(md, -1) {
		k := key{strings.Join(strings.Fields(m[1]), " "), m[2]}
		used[k]++
		if used[k] > byText[k.text] && byText[k.text] > 0 {
			out = append(out, fmt.Sprintf("[%s](%s) ×%d, on the page ×%d", k.text, k.href, used[k], byText[k.text]))
		}
	}
	return out
}

// tableChecks flags a table whose cells are all empty and a row that
// repeats the header (a <tfoot> with the column names again).
func tableChecks(md string, add func(kind, format string, args ...any)) {
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "|-") && !strings.HasPrefix(lines[i+1], "| -") && !strings.HasPrefix(lines[i+1], "|:") {
			continue
		}
		header := lines[i]
		j := i + 2
		empty := strings.Trim(header, "| ") == ""
		for ; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
			if lines[j] == header && strings.Trim(header, "| ") != "" {
				add(defectTfoot, "%q", header)
			}
			if strings.Trim(lines[j], "| ") != "" {
				empty = false
			}
		}
		if empty {
			add(defectEmptyTable, "%q", header)
		}
		i = j
	}
}

func scanCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	data := fs.String("data", "", "benchmark directory")
	verbose := fs.Bool("v", false, "list every finding")
	variant := fs.String("variant", "default", "extraction settings: "+variantNames())
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts, ok := variants[*variant]
	if !ok {
		return fmt.Errorf("unknown variant %q", *variant)
	}
	pages, err := benchpages.Load(*data)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	pagesWith := map[string]int{}
	for _, p := range pages {
		doc, err := extract.Extract(p.HTML, p.URL, opts)
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", p.ID, err)
			continue
		}
		seen := map[string]bool{}
		for _, f := range scanPage(p.HTML, p.URL, doc) {
			counts[f.kind]++
			if !seen[f.kind] {
				seen[f.kind] = true
				pagesWith[f.kind]++
			}
			if *verbose {
				fmt.Fprintf(w, "%s %s: %s: %s\n", p.ID[:12], p.URL, f.kind, f.detail)
			}
		}
	}
	total := 0
	fmt.Fprintf(w, "\n%d pages scanned\n| defect | occurrences | pages |\n|---|---|---|\n", len(pages))
	for _, k := range []string{defectGlued, defectTextChanged, defectTable, defectEscape, defectLink, defectCut, defectTfoot, defectEmptyTable, defectInvisible, defectShare, defectDangling, defectHeader} {
		fmt.Fprintf(w, "| %s | %d | %d |\n", k, counts[k], pagesWith[k])
		total += counts[k]
	}
	if total > 0 {
		return fmt.Errorf("%d defects found", total)
	}
	return nil
}
