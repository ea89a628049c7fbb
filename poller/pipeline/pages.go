package pipeline

import (
	"context"
	"fmt"

	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
)

// HTTPPages fetches article pages through the hardened fetcher for the
// extraction cascade. Its requests answer to the fetcher's article-page
// scope: pages that fail (a feed full of dead links, a site that turns
// bots away from its articles) spare that host further page fetches for a
// while, but never defer the polls of the feeds it serves.
type HTTPPages struct{ Client *fetch.Client }

// FetchPage gets a page's HTML; anything that is not HTML is refused.
func (h HTTPPages) FetchPage(ctx context.Context, pageURL string) ([]byte, error) {
	resp, err := h.Client.Get(ctx, fetch.Request{URL: pageURL, Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
		Scope: fetch.ScopePage})
	if err != nil {
		return nil, err
	}
	if resp.ContentType != "" && resp.ContentType != "text/html" && resp.ContentType != "application/xhtml+xml" {
		return nil, fmt.Errorf("article page %s: content type %s is not HTML", pageURL, resp.ContentType)
	}
	return resp.Body, nil
}

// FirecrawlPages renders article pages through Firecrawl, for pages that
// need JavaScript.
type FirecrawlPages struct{ Client *firecrawl.Client }

// FetchPage returns the page's main-content HTML as Firecrawl rendered it.
func (f FirecrawlPages) FetchPage(ctx context.Context, pageURL string) ([]byte, error) {
	page, err := f.Client.Scrape(ctx, pageURL)
	if err != nil {
		return nil, err
	}
	return []byte(page.HTML), nil
}
