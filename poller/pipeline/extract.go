package pipeline

import (
	"context"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// PageFetcher gets an article page's HTML for the extraction cascade
// (*fetch.Client, *firecrawl.Client).
type PageFetcher interface {
	FetchPage(ctx context.Context, pageURL string) (html []byte, err error)
}

// Extraction methods recorded in feed_articles.extraction_method, one per
// cascade tier.
const (
	MethodFeedContent  = "feed_content"          // the entry's own HTML
	MethodPage         = "web_page"              // a web source's page, main content
	MethodArticlePage  = "article_page"          // the entry's link fetched, main content
	MethodRenderedPage = "rendered_page"         // the page through Firecrawl
	MethodSummary      = model.ExtractionSummary // only the entry's summary was usable
)

// minQuality is the quality score under which a long-enough tier is still
// passed over (navigation-heavy pages, link lists).
const minQuality = 0.3

// extraction is what the cascade kept for one item.
type extraction struct {
	markdown string
	text     string
	method   string
	stats    extract.Stats
	meta     extract.Metadata
	// fragment or page is the HTML the markdown came from, whose tokens
	// are counted once the cascade has chosen (tokens): a tier passed over
	// never pays for the count.
	fragment string
	page     []byte
}

// tokens counts the chosen extraction's tokens (raw HTML and Markdown,
// both encodings) into its stats.
func (e *extraction) tokens() {
	if e.method == "" {
		return
	}
	// A tier has a fragment or a page: the fragment is counted as it is,
	// not copied into a new string.
	raw := e.fragment
	if len(e.page) > 0 {
		raw += string(e.page)
	}
	e.stats.CountTokens(raw, e.markdown)
}

func (e extraction) words() int { return e.stats.WordCount }

// budget bounds the page fetches of one batch.
type budget struct{ pages int }

func (b *budget) take() bool {
	if b.pages <= 0 {
		return false
	}
	b.pages--
	return true
}

// extract runs the cascade for every item, in order, within one budget of
// page fetches. Fetches run on ctx, which ends before the batch must be
// saved; a fetch that fails or runs out of time leaves the item with what
// the earlier tiers found.
func (p *Pipeline) extract(ctx context.Context, src model.FeedSource, items []item) {
	b := &budget{pages: p.opts.MaxArticleFetches}
	for i := range items {
		items[i].ex = p.cascade(ctx, src, items[i].feed, items[i].link, b)
		items[i].ex.tokens()
	}
}

// cascade tries the item's own HTML, then the article page, then a
// rendered page, then the summary. A tier is accepted when it reaches
// MinWords with acceptable quality; otherwise the longest result wins.
func (p *Pipeline) cascade(ctx context.Context, src model.FeedSource, fi sources.FeedItem, itemURL string, b *budget) extraction {
	var best extraction
	consider := func(e extraction) bool {
		if e.words() > best.words() || best.method == "" {
			best = e
		}
		return e.words() >= p.opts.MinWords && e.stats.Quality >= minQuality
	}
	if src.SourceType == model.SourceWeb {
		// The HTML the web poll produced is the first tier: no second fetch
		// when it is enough.
		if e, ok := fromWebPage(fi, itemURL); ok && consider(e) {
			return best
		}
	} else if fi.ContentHTML != "" {
		if e, ok := fromFragment(fi.ContentHTML, itemURL, MethodFeedContent); ok && consider(e) {
			return best
		}
	}
	if src.SourceType != model.SourceWeb && p.opts.Pages != nil && itemURL != "" && b.take() {
		if html, err := p.opts.Pages.FetchPage(ctx, itemURL); err == nil {
			if e, ok := fromPage(html, itemURL, MethodArticlePage); ok && consider(e) {
				return best
			}
		} else {
			p.log.Debug("article page fetch failed", "url", itemURL, "err", err)
		}
	}
	// A web page is never rendered again: when Firecrawl is configured it
	// already produced the polled HTML, and a second scrape of the same URL
	// would spend a credit on every poll for the same page.
	if src.SourceType != model.SourceWeb && p.opts.Render != nil && itemURL != "" && b.take() {
		if html, err := p.opts.Render.FetchPage(ctx, itemURL); err == nil {
			// Firecrawl renders main content only: convert it as it is.
			if e, ok := fromFragment(string(html), itemURL, MethodRenderedPage); ok && consider(e) {
				return best
			}
		} else {
			p.log.Debug("rendered page fetch failed", "url", itemURL, "err", err)
		}
	}
	if best.words() < p.opts.MinWords && fi.Summary != "" {
		// Nothing else found: a summary that is only an image (a photo
		// feed) still beats an empty body.
		if e, ok := fromFragment(fi.Summary, itemURL, MethodSummary); ok && (e.words() > best.words() || best.method == "") {
			best = e
		}
	}
	return best
}

func fromFragment(fragment, baseURL, method string) (extraction, bool) {
	doc, err := extract.FragmentDocument(fragment, baseURL, extract.Options{SkipTokenCounts: true})
	if err != nil || doc.Markdown == "" {
		return extraction{}, false
	}
	return extraction{markdown: doc.Markdown, text: doc.Text, method: method, stats: doc.Stats, fragment: fragment}, true
}

func fromPage(html []byte, pageURL, method string) (extraction, bool) {
	if len(html) == 0 {
		return extraction{}, false
	}
	doc, err := extract.Extract(html, pageURL, extract.Options{SkipTokenCounts: true})
	if err != nil || doc.Markdown == "" {
		return extraction{}, false
	}
	return extraction{markdown: doc.Markdown, text: doc.Text, method: method, stats: doc.Stats, meta: doc.Metadata,
		page: html}, true
}

// fromWebPage converts the HTML of a web poll: a whole page goes through
// main-content extraction, HTML that already is the main content is
// converted as it is.
func fromWebPage(fi sources.FeedItem, pageURL string) (extraction, bool) {
	if fi.ContentIsMain {
		return fromFragment(fi.ContentHTML, pageURL, MethodPage)
	}
	return fromPage([]byte(fi.ContentHTML), pageURL, MethodPage)
}
