package rss

import (
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/sources"
)

// mapItem turns one gofeed entry into a FeedItem. base resolves relative
// entry links.
func mapItem(it *gofeed.Item, base *url.URL) sources.FeedItem {
	fi := sources.FeedItem{
		Title:       cleanText(it.Title),
		URL:         itemURL(it, base),
		GUID:        strings.TrimSpace(it.GUID),
		Author:      itemAuthor(it),
		Summary:     strings.TrimSpace(it.Description),
		ContentHTML: strings.TrimSpace(it.Content),
		Categories:  cleanCategories(it.Categories),
	}
	switch {
	case it.PublishedParsed != nil:
		t := it.PublishedParsed.UTC()
		fi.PublishedAt = &t
	case it.UpdatedParsed != nil:
		t := it.UpdatedParsed.UTC()
		fi.PublishedAt = &t
	}
	return fi
}

// itemURL is the entry's link made absolute; entries without a link fall
// back to a GUID that is itself a web URL (RSS isPermaLink).
func itemURL(it *gofeed.Item, base *url.URL) string {
	candidates := append([]string{it.Link}, it.Links...)
	candidates = append(candidates, it.GUID)
	for i, c := range candidates {
		isGUID := i == len(candidates)-1
		if u := absoluteHTTP(c, base, !isGUID); u != "" {
			return u
		}
	}
	return ""
}

// absoluteHTTP resolves ref against base and keeps it only when it is an
// http(s) URL. A GUID is never resolved: a relative GUID is an opaque id.
func absoluteHTTP(ref string, base *url.URL, resolve bool) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if !u.IsAbs() {
		if !resolve || base == nil {
			return ""
		}
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
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

func itemAuthor(it *gofeed.Item) string {
	people := it.Authors
	if it.Author != nil {
		people = append([]*gofeed.Person{it.Author}, people...)
	}
	for _, p := range people {
		if p == nil {
			continue
		}
		if name := cleanText(p.Name); name != "" {
			return name
		}
		if email := strings.TrimSpace(p.Email); email != "" {
			return email
		}
	}
	return ""
}

func cleanCategories(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, c := range in {
		c = cleanText(c)
		if c == "" || seen[strings.ToLower(c)] {
			continue
		}
		seen[strings.ToLower(c)] = true
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// cleanText collapses the whitespace feeds put in titles and names.
func cleanText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
