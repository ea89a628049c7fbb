package extract

import (
	"net/url"

	readability "codeberg.org/readeck/go-readability/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// Method names recorded in Document.Method.
const (
	methodTrafilatura = "trafilatura"
	methodReadability = "readability"
)

// mainContent picks the article subtree. root may be modified: the
// caller reads what it needs from it first.
//
// go-trafilatura leads: on the benchmark it is the more precise of the two
// (it prunes by selectors and link density, block by block), while
// readability scores whole containers and keeps more around the article.
// Readability is its fallback, and the choice between them is
// go-trafilatura's own comparison (EnableFallback with readability as the
// candidate, dom-distiller disabled). The library takes its candidates up
// front, so readability runs on every page: deciding first whether it could
// win needs go-trafilatura's result, i.e. a second extraction, and on the
// benchmark that was needed on 110 of 128 pages.
//
// cleaned reports whether the node went through go-trafilatura's cleaning
// (links and code highlighting stripped), which the refinements undo.
func mainContent(root *html.Node, base *url.URL, opts Options) (node *html.Node, method string, cleaned bool) {
	if opts.Extractor == methodReadability || paragraphCost(root) > maxParagraphCost {
		return readabilityContent(root, base, true), methodReadability, false
	}
	if !opts.KeepCaptions {
		dropCaptions(root)
	}
	topts := trafilatura.Options{
		OriginalURL: base,
		// Images stay (captions went above); links are put back by relink,
		// since the extractor's own link mode splits sentences around them.
		IncludeImages:   true,
		ExcludeComments: true,
		// feedpoller reads dates itself (metadata.go); the library's date
		// search is the most expensive part of its metadata pass.
		HtmlDateMode: trafilatura.Disabled,
	}
	var readNode *html.Node
	if opts.Extractor != methodTrafilatura {
		// Computed before go-trafilatura runs, on a copy of root: the
		// library takes its candidates up front.
		readNode = readabilityContent(root, base, false)
		empty := &html.Node{Type: html.DocumentNode}
		if readNode == nil {
			// Given nil, the library would run its own readability.
			readNode = empty
		}
		topts.EnableFallback = true
		topts.FallbackCandidates = &trafilatura.FallbackCandidates{
			Readability: readNode,
			// A non-nil empty candidate has no text, so it never wins, and
			// it keeps the library from running dom-distiller itself.
			Distiller: empty,
		}
	}
	res, err := trafilatura.ExtractDocument(root, topts)
	if err != nil || res == nil || res.ContentNode == nil {
		if opts.Extractor == methodTrafilatura {
			return nil, methodTrafilatura, false
		}
		return readabilityContent(root, base, true), methodReadability, false
	}
	if res.ContentNode == readNode {
		return readNode, methodReadability, true
	}
	return res.ContentNode, methodTrafilatura, true
}

// readabilityContent runs readeck's readability on root; mutate lets it
// work on root itself instead of a copy. nil when it finds nothing.
func readabilityContent(root *html.Node, base *url.URL, mutate bool) *html.Node {
	parser := readability.NewParser()
	var (
		art readability.Article
		err error
	)
	if mutate {
		art, err = parser.ParseAndMutate(root, base)
	} else {
		art, err = parser.ParseDocument(root, base)
	}
	if err != nil {
		return nil
	}
	return art.Node
}
