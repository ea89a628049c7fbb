package rss

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
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
	// entries says the document was read as entries with hashes
	// (itemSpans): every item carries its Digest, and context is the hash
	// of what their reading depends on besides their own bytes.
	entries bool
	context uint64
	// unchanged are the hashes of the settled entries left unread.
	unchanged []uint64
}

// readFeed parses body (already capped in size by the fetcher) and maps
// at most maxItems entries. httpCharset is the charset the server named;
// feedURL is where the body came from, the base for relative links.
//
// Given a memory of settled entries (u), it reads the document's entries
// as byte ranges first and leaves those prior settled out of what gofeed
// parses (see Unchanged). The items it maps are those a whole parse maps
// for the other entries, in the same order: when what an entry's reading
// depends on outside it (the base its relative links resolve against, the
// feed's authors, the tags outside the entries, whether the Atom text
// kinds could be read) is not what it was when prior was settled, or the
// cut document does not read as one item per remaining entry, the whole
// document is parsed instead.
func readFeed(body []byte, contentType, httpCharset, feedURL string, maxItems int, u *Unchanged, prior *settled) (*parsedFeed, error) {
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

	var spans []itemSpan
	var outside uint64
	if u != nil && kind != gofeed.FeedTypeJSON {
		var ok bool
		if spans, outside, ok = itemSpans(body, u.seed); !ok {
			spans = nil
		}
	}
	if prior != nil && spans != nil {
		keep := make([]bool, len(spans))
		kept := make([]itemSpan, 0, len(spans)) // not nil: read as entries, if none
		var left []uint64
		for k, s := range spans {
			if keep[k] = !prior.has(s.digest); keep[k] {
				kept = append(kept, s)
			} else {
				left = append(left, s.digest)
			}
		}
		if len(left) > 0 {
			out, err := mapFeed(withoutSpans(body, spans, keep), kind, feedURL, maxItems, kept, outside, u)
			if err == nil && out.entries && out.context == prior.context {
				out.unchanged = left
				return out, nil
			}
		}
	}
	return mapFeed(body, kind, feedURL, maxItems, spans, outside, u)
}

// mapFeed parses body with gofeed and maps its items. spans are body's
// entries as u read them (nil when not read as such): when the feed reads
// as one item per entry, each item carries its entry's digest.
func mapFeed(body []byte, kind gofeed.FeedType, feedURL string, maxItems int, spans []itemSpan, outside uint64, u *Unchanged) (*parsedFeed, error) {
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
	out.entries = spans != nil && len(feed.Items) == len(spans) && n == len(spans)
	if out.entries {
		out.context = feedContextHash(u.seed, outside, fc.base, feed.Authors, fc.atom != nil)
	}
	out.items = make([]sources.FeedItem, 0, n)
	for i, it := range feed.Items[:n] {
		if it == nil {
			continue
		}
		fi := mapItem(it, i, fc)
		if out.entries {
			fi.Digest = spans[i].digest
		}
		out.items = append(out.items, fi)
	}
	return out, nil
}

// feedContextHash hashes what reading an entry depends on outside its own
// bytes: the tags outside the entries (outside), the base its relative
// links resolve against (the feed's link, or the document's address),
// the feed's authors (inherited by Atom entries that name none) and
// whether the Atom text kinds were read.
func feedContextHash(seed maphash.Seed, outside uint64, base *url.URL, authors []*gofeed.Person, atomKinds bool) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], outside)
	_, _ = h.Write(n[:])
	if base != nil {
		_, _ = h.WriteString(base.String())
	}
	_ = h.WriteByte(0)
	for _, a := range authors {
		if a != nil {
			_, _ = h.WriteString(a.Name)
			_ = h.WriteByte(0)
			_, _ = h.WriteString(a.Email)
		}
		_ = h.WriteByte(1)
	}
	if atomKinds {
		_ = h.WriteByte(2)
	}
	return h.Sum64()
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
