package pipeline

import (
	"net/url"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/urls"
)

// normalize gives each feed item its dedup key: its link, resolved (a
// Google News redirect to the article behind it) and normalised, or its id
// when it has no link. An item that names neither is skipped. An item
// whose key an earlier item of the batch already has is a duplicate (the
// same URL twice in one feed); it returns the items kept and how many
// were such duplicates.
func (p *Pipeline) normalize(src model.FeedSource, feed []sources.FeedItem) ([]item, int) {
	items := make([]item, 0, len(feed))
	seen := make(map[string]bool, len(feed))
	dups := 0
	for _, fi := range feed {
		it, ok := p.keyed(src, fi)
		if !ok {
			continue
		}
		if seen[it.url] {
			dups++
			continue
		}
		seen[it.url] = true
		items = append(items, it)
	}
	return items, dups
}

// keyed resolves and normalises an item's link. A web source's one item is
// keyed by the source URL, not where the page redirected to.
func (p *Pipeline) keyed(src model.FeedSource, fi sources.FeedItem) (item, bool) {
	link := fi.URL
	if src.SourceType == model.SourceWeb {
		link = src.URL
	}
	if link == "" && (strings.HasPrefix(fi.GUID, "http://") || strings.HasPrefix(fi.GUID, "https://")) {
		link = fi.GUID
	}
	if link == "" {
		return p.keyedByID(src, fi)
	}
	link = urls.ResolveGoogleNews(link)
	norm, err := urls.Normalize(link)
	if err != nil {
		p.log.Debug("item skipped: unusable link", "source_id", src.ID, "link", link, "err", err)
		return item{}, false
	}
	return item{feed: fi, url: norm, link: pageLink(fi, link)}, true
}

// keyedByID keys a feed item that names no link but a stable id (an Atom
// tag: or urn: id, an RSS guid that is not a URL): its URL is the source's
// normalised URL with the id as the fragment, for example
// https://example.org/feed.xml#tag:example.org,2026:1. That key is the
// same on every poll, so the item is stored once and deduplicated by its
// id and by this URL alike. There is no page to fetch: the body comes from
// the feed alone. An item with neither link nor id has nothing stable to
// be known by and is skipped.
func (p *Pipeline) keyedByID(src model.FeedSource, fi sources.FeedItem) (item, bool) {
	id := strings.TrimSpace(fi.GUID)
	if id == "" {
		p.log.Debug("item skipped: no link and no id", "source_id", src.ID, "title", fi.Title)
		return item{}, false
	}
	base, err := urls.Normalize(src.URL)
	if err != nil {
		p.log.Debug("item skipped: no link, and the source URL is unusable", "source_id", src.ID, "err", err)
		return item{}, false
	}
	return item{feed: fi, url: idURL(base, id)}, true
}

// idURL is base with id as its fragment, escaped only where a fragment
// must be.
func idURL(base, id string) string {
	return base + "#" + (&url.URL{Fragment: id}).EscapedFragment()
}

// pageLink is the link the cascade may fetch as the item's article page:
// none when the link is the item's enclosure (an episode's audio file is
// no page to read).
func pageLink(fi sources.FeedItem, link string) string {
	if fi.LinkIsMedia {
		return ""
	}
	return link
}
