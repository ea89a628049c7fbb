package rss

import (
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"
	ext "github.com/mmcdole/gofeed/extensions"

	"github.com/feedpoller/feedpoller/sources/urls"
)

// itemLink is the item's link made absolute, from every place a feed can
// put one, best first:
//
//  1. feedburner:origLink, the article behind FeedBurner's tracking link;
//  2. the item's own link (RSS <link>, Atom rel="alternate", JSON url);
//  3. an <atom:link> inside an RSS item;
//  4. the other links (Atom links without rel, JSON external_url);
//  5. a GUID that is itself a web URL (RSS isPermaLink);
//  6. the first enclosure (a podcast episode without a page), then the
//     first Media RSS content.
//
// media reports that the link is an enclosure: a media file, not a page
// to read.
func itemLink(it *gofeed.Item, base *url.URL) (link string, media bool) {
	candidates := extValues(it.Extensions, "feedburner", "origLink")
	candidates = append(candidates, it.Link)
	candidates = append(candidates, rssAtomLinks(it.Extensions)...)
	candidates = append(candidates, it.Links...)
	for _, c := range candidates {
		if u := urls.Absolute(base, c); u != "" {
			return u, false
		}
	}
	if u := urls.Absolute(nil, it.GUID); u != "" {
		return u, false
	}
	for _, e := range it.Enclosures {
		if e != nil {
			if u := urls.Absolute(base, e.URL); u != "" {
				return u, true
			}
		}
	}
	for _, u := range mediaContentURLs(it.Extensions) {
		if u = urls.Absolute(base, u); u != "" {
			return u, true
		}
	}
	return "", false
}

// mediaContentURLs are the urls of Media RSS content, Media RSS's
// enclosure, on the item and in its media:group.
func mediaContentURLs(exts ext.Extensions) []string {
	var out []string
	media := exts["media"]
	scopes := []map[string][]ext.Extension{media}
	for _, g := range media["group"] {
		scopes = append(scopes, g.Children)
	}
	for _, s := range scopes {
		for _, c := range s["content"] {
			out = append(out, c.Attrs["url"])
		}
	}
	return out
}

// extValues are the texts of the extension elements prefix:name.
func extValues(exts ext.Extensions, prefix, name string) []string {
	var out []string
	for _, e := range exts[prefix][name] {
		if v := strings.TrimSpace(e.Value); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// rssAtomLinks are the hrefs of <atom:link> elements in an RSS item that
// point at the item's page (rel alternate, or no rel).
func rssAtomLinks(exts ext.Extensions) []string {
	var out []string
	for _, prefix := range []string{"atom", "atom10", "atom03"} {
		for _, l := range exts[prefix]["link"] {
			rel := strings.ToLower(strings.TrimSpace(l.Attrs["rel"]))
			if rel == "" || rel == "alternate" {
				out = append(out, l.Attrs["href"])
			}
		}
	}
	return out
}

// feedBase is the feed's own link made absolute against the URL it was
// fetched from, or that URL itself.
func feedBase(feedLink, fetchedURL string) *url.URL {
	fetched, err := url.Parse(fetchedURL)
	if err != nil || !fetched.IsAbs() {
		fetched = nil
	}
	if link, err := url.Parse(strings.TrimSpace(feedLink)); err == nil && feedLink != "" {
		if link.IsAbs() && (link.Scheme == "http" || link.Scheme == "https") {
			return link
		}
		if fetched != nil {
			return fetched.ResolveReference(link)
		}
	}
	return fetched
}

// maxSiteURL bounds a stored site URL, as the source service bounds every
// URL it accepts.
const maxSiteURL = 2048

// siteURL is the feed's site link (gofeed's Link: RSS <link>, else an
// <atom:link rel="alternate">; Atom's alternate link; JSON Feed's
// home_page_url) made absolute against the document's URL, or "" when
// it is not a web URL (javascript:, mailto:) or longer than a URL the
// service accepts.
func siteURL(link string, doc *url.URL) string {
	u := urls.Absolute(doc, link)
	if len(u) > maxSiteURL {
		return ""
	}
	return u
}
