package poller

import (
	"net/url"
	"strings"

	"github.com/feedpoller/feedpoller/poller/urlnorm"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

// idCandidate keys a feed item that names no link but a stable id (an
// Atom tag: or urn: id, an RSS guid that is not a URL): its URL is the
// source's normalised URL with the id as the fragment, for example
// https://example.org/feed.xml#tag:example.org,2026:1. That key is the
// same on every poll, so the item is stored once and deduplicated by its
// id and by this URL alike. There is no page to fetch: the body comes from
// the feed alone. An item with neither link nor id has nothing stable to
// be known by and is skipped.
func (p *Poller) idCandidate(src store.FeedSource, it sources.FeedItem) (candidate, bool) {
	id := strings.TrimSpace(it.GUID)
	if id == "" {
		p.log.Debug("item skipped: no link and no id", "source_id", src.ID, "title", it.Title)
		return candidate{}, false
	}
	base, err := urlnorm.Normalize(src.URL)
	if err != nil {
		p.log.Debug("item skipped: no link, and the source URL is unusable", "source_id", src.ID, "err", err)
		return candidate{}, false
	}
	return candidate{item: it, url: idURL(base, id)}, true
}

// idURL is base with id as its fragment, escaped only where a fragment
// must be.
func idURL(base, id string) string {
	return base + "#" + (&url.URL{Fragment: id}).EscapedFragment()
}

// pageLink is the link the cascade may fetch as the item's article page:
// none when the link is the item's enclosure (an episode's audio file is
// no page to read).
func pageLink(it sources.FeedItem, link string) string {
	if it.LinkIsMedia {
		return ""
	}
	return link
}
