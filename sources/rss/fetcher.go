// Package rss fetches and validates RSS, Atom and JSON Feed sources: a
// conditional GET through the hardened fetcher, then gofeed on the bytes,
// mapped to sources.FeedItem.
package rss

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// DefaultMaxItems caps the items taken from one feed.
const DefaultMaxItems = 1000

// DefaultValidateTimeout bounds Validate, which answers an API request.
const DefaultValidateTimeout = 10 * time.Second

// feedAccept prefers feed formats but accepts anything, so a server that
// ignores Accept still answers and the parser can say what it got.
const feedAccept = "application/rss+xml, application/atom+xml, application/feed+json, " +
	"application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5"

// Fetcher polls feed sources. Client is required; the zero MaxItems means
// DefaultMaxItems.
type Fetcher struct {
	Client *fetch.Client
	// MaxItems caps the items taken from one feed (default 1000). The
	// first MaxItems in document order are kept: feeds list newest first.
	MaxItems int
	// ValidateTimeout bounds Validate (default 10s).
	ValidateTimeout time.Duration
	// Now is the clock that dates the response's caching hints (default
	// time.Now).
	Now func() time.Time
	// Unchanged, when set, remembers the settled entries of each source's
	// feed, which later fetches leave unparsed (see Unchanged). nil: every
	// feed is parsed whole.
	Unchanged *Unchanged
}

func (f *Fetcher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Fetcher) maxItems() int {
	if f.MaxItems > 0 {
		return f.MaxItems
	}
	return DefaultMaxItems
}

// Fetch performs a conditional GET of req.URL with the stored validators
// sent verbatim, and parses the answer. A 304 yields NotModified with the
// validators echoed back. Failures are *sources.FetchError; a body that is
// not a feed is KindPermanent "not a feed: …".
func (f *Fetcher) Fetch(ctx context.Context, req sources.Request) (*sources.Result, error) {
	if f.Client == nil {
		return nil, fmt.Errorf("fetch feed %s: rss.Fetcher has no Client", req.URL)
	}
	resp, err := f.Client.Get(ctx, fetch.Request{
		URL:          req.URL,
		Accept:       feedAccept,
		ETag:         req.ETag,
		LastModified: req.LastModified,
	})
	if err != nil {
		return nil, err
	}
	res := &sources.Result{HTTPStatus: resp.Status, FinalURL: resp.FinalURL,
		Hints: sources.HTTPHints(resp.Header, resp.FinalURL, f.now())}
	if resp.Status == 304 {
		// A 304 may omit the validators; the stored ones stay valid then.
		res.NotModified = true
		res.ETag = firstNonEmpty(resp.Header.Get("ETag"), req.ETag)
		res.LastModified = firstNonEmpty(resp.Header.Get("Last-Modified"), req.LastModified)
		return res, nil
	}
	res.ETag = resp.Header.Get("ETag")
	res.LastModified = resp.Header.Get("Last-Modified")

	parsed, settle, err := f.Unchanged.read(resp.Body, resp.ContentType, resp.Charset, resp.FinalURL, f.maxItems(),
		req.SourceID, req.URL)
	if err != nil {
		// The server answered; the poll record keeps what it answered.
		var fe *sources.FetchError
		if errors.As(err, &fe) && fe.Status == 0 {
			fe.Status = resp.Status
		}
		return nil, err
	}
	res.FeedTitle, res.SiteURL = parsed.title, parsed.siteURL
	res.Items = parsed.items
	res.Unchanged, res.Settle = len(parsed.unchanged), settle
	// Link headers name the hub first: WebSub asks subscribers to prefer
	// them to the links in the document.
	res.Hints = res.Hints.Merge(parsed.hints)
	return res, nil
}

// Validation is what Validate found of a feed.
type Validation struct {
	Title string
	// ItemCount is the feed's current number of items (after the
	// MaxItems cap).
	ItemCount int
	// SiteURL is the site the feed names (see sources.Result), or "".
	SiteURL string
}

// Validate fetches and parses url unconditionally and reports the feed's
// title, current item count and site. The error names the reason:
// "HTTP 404", "not a feed: …", "timed out after 10s".
func (f *Fetcher) Validate(ctx context.Context, url string) (Validation, error) {
	timeout := f.ValidateTimeout
	if timeout <= 0 {
		timeout = DefaultValidateTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := f.Fetch(ctx, sources.Request{URL: url})
	if err != nil {
		return Validation{}, err
	}
	return Validation{Title: res.FeedTitle, ItemCount: len(res.Items), SiteURL: res.SiteURL}, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Parse parses a feed document that arrived without a fetch (a WebSub
// hub's content distribution): the same parser and item mapping as Fetch,
// links resolved against feedURL. contentType and charset are the
// delivery's Content-Type media type and charset parameter ("" when
// none); maxItems 0 means DefaultMaxItems.
func Parse(body []byte, contentType, charset, feedURL string, maxItems int) (*sources.Result, error) {
	var u *Unchanged
	return u.Parse(body, contentType, charset, feedURL, maxItems, 0, "")
}

// Parse is rss.Parse for a delivery to source, whose address is
// sourceURL: the entries settled for the source, by its polls or earlier
// deliveries, are left out (the result's Unchanged), and the result's
// Settle settles the others once they are stored. A nil memory parses the
// document whole.
func (u *Unchanged) Parse(body []byte, contentType, charset, feedURL string, maxItems int, source int64, sourceURL string) (*sources.Result, error) {
	if maxItems <= 0 {
		maxItems = DefaultMaxItems
	}
	parsed, settle, err := u.read(body, contentType, charset, feedURL, maxItems, source, sourceURL)
	if err != nil {
		return nil, err
	}
	return &sources.Result{HTTPStatus: 200, FinalURL: feedURL, FeedTitle: parsed.title, Items: parsed.items,
		Unchanged: len(parsed.unchanged), Settle: settle, Hints: parsed.hints}, nil
}
