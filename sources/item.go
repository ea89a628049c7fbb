// Package sources knows how each source type is fetched and validated: the
// hardened HTTP fetcher (sources/fetch), RSS/Atom/JSON feeds (sources/rss),
// web pages through Firecrawl or the native fetcher (sources/web,
// sources/firecrawl) and HTML→Markdown extraction (sources/extract).
package sources

import "time"

// FeedItem is what a poll yields before storage: one feed entry, or the one
// item synthesised from a web page.
type FeedItem struct {
	Title       string
	URL         string
	GUID        string // empty when the entry has none
	Author      string
	PublishedAt *time.Time
	Summary     string
	// ContentHTML is the entry's own HTML (content:encoded, Atom content, or
	// the page HTML of a web source). Empty when the entry has none.
	ContentHTML string
	// ContentIsMain says ContentHTML is already an article's main content
	// (Firecrawl's html format strips the head and page chrome), so it is
	// converted as it is rather than extracted again, which would cost it
	// its headings and lists.
	ContentIsMain bool
	Categories    []string
	// Language is the content's language as the source declares it
	// (e.g. <html lang>), empty when unknown.
	Language string

	// LinkIsMedia says URL is the entry's enclosure (an audio, video or
	// image file), not a page: it is never fetched as an article.
	LinkIsMedia bool
	// Digest identifies the entry's bytes in the feed document, for
	// Result.Settle; 0 when the fetcher did not read them as such.
	Digest uint64
}

// Request describes one fetch of a source.
type Request struct {
	SourceID int64
	URL      string
	// ETag and LastModified are the validators stored from the previous
	// successful fetch, sent back verbatim. Both empty: unconditional fetch.
	ETag         string
	LastModified string
}

// Result is what one successful fetch of a source produced.
type Result struct {
	// NotModified is true when the server answered 304: Items is empty.
	NotModified bool
	HTTPStatus  int
	// FeedTitle is the feed's or page's title, when known.
	FeedTitle string
	// SiteURL is the site the feed belongs to, as the feed names it
	// (RSS channel <link>, Atom alternate link, JSON Feed home_page_url):
	// an absolute http(s) URL, or "" when the feed names none usable.
	SiteURL string
	Items   []FeedItem
	// Unchanged is how many of the feed's entries were left out of Items
	// because they are byte for byte entries an earlier poll of the
	// source settled (stored, or found stored): each counts as listed and
	// as a duplicate.
	Unchanged int
	// Settle, when not nil, is called once the poll's save committed,
	// with the Digests of the items whose outcome is settled (stored, or
	// found stored already): later fetches may leave those entries
	// unread while they stay the same.
	Settle func(digests []uint64)
	// ETag and LastModified are the validators to store for the next fetch,
	// verbatim as the server sent them (empty when it sent none).
	ETag         string
	LastModified string
	// FinalURL is where redirects ended, for information only.
	FinalURL string
	// Hints are what the feed and the response's headers said about when
	// to poll next and where the feed pushes (a 304 carries the headers'
	// hints only). The scheduling policy (poller/schedule) reads them.
	Hints Hints
}
