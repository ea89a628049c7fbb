package extract

import (
	"bytes"
	"errors"
	"fmt"

	"golang.org/x/net/html"
)

// Options tunes Extract. The zero value is the recommended setting.
type Options struct {
	// Extractor forces one extractor instead of the automatic choice:
	// "trafilatura" or "readability". Empty means automatic.
	Extractor string
	// KeepCaptions keeps figure captions, as an italic line under their
	// pictures. Off by default: on the extraction benchmark, whose
	// human-written bodies leave captions out, keeping them cost two
	// points of precision (see docs/extraction.md).
	KeepCaptions bool
	// SkipTokenCounts leaves the token counts of Stats at 0, for callers
	// that do not show them: counting loads the vocabularies (0.1 s of
	// CPU, once per process) and reads the whole page.
	SkipTokenCounts bool
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
	renameCustomElements(root)
	wrapLooseText(root)
	dropRepeatedFooters(root)
	if opts.KeepCaptions {
		// The extractor drops <figcaption>; a paragraph it keeps.
		italicCaptions(root)
	}

	// What the refinements need from the page is read before extraction,
	// so that readability may then work on root itself instead of a copy.
	text, pres, lists := readPageText(root), originalCode(root), originalLists(root)

	node, method, cleaned := mainContent(root, base, opts)
	if node == nil {
		return nil, fmt.Errorf("extract %s: %w", pageURL, ErrNoContent)
	}
	fixAtoms(node)
	restoreSpacing(node, text.lines)
	if cleaned {
		pruneLinkBlocks(node, text)
		relink(node, text)
		restoreCode(node, pres)
		restoreListNumbering(node, lists)
	}
	dropLeadingTitle(node, meta.Title, meta.Description)
	dropMetaLines(node, meta.Author)
	dropTrailingHeadings(node)
	md, err := nodeToMarkdown(node, base)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", pageURL, err)
	}
	d := &Document{Markdown: md, Text: blockText(node), Metadata: meta, Method: method}
	d.Stats = computeStats(page, d, !opts.SkipTokenCounts)
	return d, nil
}
