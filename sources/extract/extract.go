package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/feedpoller/feedpoller/sources/extract/internal/trafilatura"
)

// Options tunes Extract. The zero value is the recommended setting.
type Options struct {
	// Extractor forces one extractor instead of the automatic choice:
	// "trafilatura" or "readability". Empty means automatic.
	Extractor string
	// KeepCaptions keeps figure captions next to their images. Off by
	// default: captions repeat or annotate the article rather than carry it.
	KeepCaptions bool
}

// Document is the result of extracting one page.
type Document struct {
	// Markdown is the article body only: no title, byline or front matter.
	Markdown string
	// Text is the visible text of Markdown, one block per line.
	Text     string
	Metadata Metadata
	Stats    Stats
	// Method names the extractor whose output was kept.
	Method string
}

// ErrNoContent is returned when a page has no main content at all.
var ErrNoContent = errors.New("no main content found")

// Extract finds the main content of a page, converts it to Markdown and
// measures it. pageURL resolves relative links and images (after any
// <base href>); it is never fetched.
func Extract(page []byte, pageURL string, opts Options) (doc *Document, err error) {
	defer func() {
		// The extractors walk arbitrary DOMs; a bug there must cost one
		// page, not the process.
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("extract %s: internal error: %v", pageURL, r)
		}
	}()
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parse html of %s: %w", pageURL, err)
	}
	meta := metadataFromDoc(root, pageURL)
	base := documentBase(root, pageURL)
	removeTrackingPixels(root)

	// What the refinements need from the page is read before extraction,
	// so that readability may then work on root itself instead of a copy.
	links, pres, lists := originalLinks(root), originalCode(root), originalLists(root)

	node, method := mainContent(root, base, opts)
	if node == nil {
		return nil, fmt.Errorf("extract %s: %w", pageURL, ErrNoContent)
	}
	fixAtoms(node)
	if method != "readability" {
		pruneLinkBlocks(node, links)
		relink(node, links)
		restoreCode(node, pres)
		restoreListNumbering(node, lists)
	}
	dropLeadingTitle(node, meta.Title, meta.Description)
	dropMetaLines(node, meta.Author)
	md, err := nodeToMarkdown(node, base)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", pageURL, err)
	}
	d := &Document{Markdown: md, Text: blockText(node), Metadata: meta, Method: method}
	d.Stats = computeStats(page, d)
	return d, nil
}

// mainContent picks the article subtree. root may be modified: the
// caller reads what it needs from it first.
//
// go-trafilatura leads: on the benchmark it is the more precise of the two
// (it prunes by selectors and link density, block by block), while
// readability scores whole containers and keeps more around the article.
// Readability is its fallback, compared as upstream trafilatura does.
func mainContent(root *html.Node, base *url.URL, opts Options) (*html.Node, string) {
	var readNode *html.Node
	readDone := false
	// readable runs readability at most once. It mutates root, which is
	// safe: trafilatura works on its own copy and is done with root by the
	// time it asks for a fallback.
	readable := func() *html.Node {
		if !readDone {
			readDone = true
			parser := readability.NewParser()
			if art, err := parser.ParseAndMutate(root, base); err == nil {
				readNode = art.Node
			}
		}
		return readNode
	}
	if opts.Extractor == "readability" {
		return readable(), "readability"
	}
	topts := trafilatura.Options{
		OriginalURL: base,
		// Images stay (captions go); links are put back by relink, since
		// the extractor's own link mode splits sentences around them.
		IncludeImages: true,
		KeepCaptions:  opts.KeepCaptions,
	}
	if opts.Extractor != "trafilatura" {
		topts.FallbackCandidates = &trafilatura.FallbackCandidates{
			Generators:      []func() *html.Node{readable},
			MaxCandidateLen: textLenBound(root),
		}
	}
	res, err := trafilatura.ExtractDocument(root, topts)
	if err != nil || res == nil || res.ContentNode == nil {
		return readable(), "readability"
	}
	return res.ContentNode, res.Method
}

// textLenBound is an upper bound on the length of any text an extractor
// can take from the page's <body>, counted as trafilatura counts: the runes
// of every text node plus one separator each. Readability cannot return
// more, so when trafilatura already holds half of it the fallback is
// skipped without changing the result.
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
