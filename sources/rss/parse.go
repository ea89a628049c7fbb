package rss

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/sources"
)

// parsedFeed is what a feed body yields.
type parsedFeed struct {
	title string
	// siteURL is the feed's site link, absolute http(s), or "".
	siteURL string
	items   []sources.FeedItem
	// hints are what the feed declares about its schedule and hubs.
	hints sources.Hints
}

// parseFeed parses body (already capped in size by the fetcher) and maps
// at most maxItems entries. httpCharset is the charset the server named;
// feedURL is where the body came from, the base for relative links.
func parseFeed(body []byte, contentType, httpCharset, feedURL string, maxItems int) (*parsedFeed, error) {
	body = toUTF8(body, httpCharset)
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, notAFeed("empty response")
	}
	kind := detect(body)
	if kind == gofeed.FeedTypeUnknown {
		if looksLikeHTML(body, contentType) {
			return nil, notAFeed("got an HTML page, not RSS, Atom or JSON Feed")
		}
		return nil, notAFeed(gofeed.ErrFeedTypeNotDetected.Error())
	}

	// Cut the document down to maxItems entries before gofeed builds a
	// struct for every one: a 10 MiB body of empty <item/>s would
	// otherwise cost gigabytes.
	body = capItems(body, kind, maxItems)

	side := sideTable{}
	var hints sources.Hints
	feed, err := parseBytes(body, side, &hints)
	if err != nil {
		return nil, notAFeed(shortParseError(err))
	}

	fc := feedContext{base: feedBase(feed.Link, feedURL), side: side}
	feedTitleKind := kindHTML
	switch kind {
	case gofeed.FeedTypeAtom:
		fc.authors = feed.Authors
		if k, ok := scanAtomKinds(body); ok && len(k.entries) == len(feed.Items) {
			fc.atom = &k
			feedTitleKind = k.feedTitle
		}
	case gofeed.FeedTypeJSON:
		// JSON Feed titles are plain text by the specification.
		fc.titleKind, feedTitleKind = kindText, kindText
		fc.authors = feed.Authors
	}
	// Hub and self links are relative to the document, not to its site.
	docURL, _ := url.Parse(feedURL)
	out := &parsedFeed{title: titleText(feed.Title, feedTitleKind), siteURL: siteURL(feed.Link, docURL),
		hints: resolveHints(hints, docURL)}
	n := min(len(feed.Items), maxItems)
	out.items = make([]sources.FeedItem, 0, n)
	for i, it := range feed.Items[:n] {
		if it == nil {
			continue
		}
		out.items = append(out.items, mapItem(it, i, fc))
	}
	return out, nil
}

func detect(body []byte) gofeed.FeedType {
	return gofeed.DetectFeedType(bytes.NewReader(body[:min(len(body), 4096)]))
}

// parseBytes runs gofeed on an in-memory body; never on a URL, so every
// request goes through the hardened fetcher.
func parseBytes(body []byte, side sideTable, hints *sources.Hints) (feed *gofeed.Feed, err error) {
	// gofeed is third-party code fed hostile input: a panic in it must
	// cost one poll, not the process.
	defer func() {
		if r := recover(); r != nil {
			feed, err = nil, fmt.Errorf("parser panic: %v", r)
		}
	}()
	return newParser(side, hints, body).Parse(bytes.NewReader(body))
}

func notAFeed(reason string) *sources.FetchError {
	return &sources.FetchError{Kind: sources.KindPermanent, Msg: "not a feed: " + reason}
}

// shortParseError keeps the parser's message to one readable line.
func shortParseError(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if len(msg) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

func looksLikeHTML(body []byte, contentType string) bool {
	if contentType == "text/html" || contentType == "application/xhtml+xml" {
		return true
	}
	head := bytes.ToLower(body[:min(len(body), 1024)])
	return bytes.Contains(head, []byte("<!doctype html")) || bytes.Contains(head, []byte("<html"))
}
