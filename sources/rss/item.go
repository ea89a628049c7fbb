package rss

import (
	"html"
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/urls"
)

// feedContext is what mapping an item needs to know about its feed.
type feedContext struct {
	base *url.URL
	// kind of the item titles: markup for RSS (titles may carry escaped
	// HTML), plain text for JSON Feed, per entry for Atom.
	titleKind textKind
	atom      *atomKinds // nil unless Atom and its types were read
	side      sideTable
	// authors of the feed, inherited by Atom and JSON Feed items that
	// name none (RFC 4287 4.2.1; JSON Feed 1.1 authors).
	authors []*gofeed.Person
}

// mapItem turns the i-th gofeed entry into a FeedItem.
func mapItem(it *gofeed.Item, i int, fc feedContext) sources.FeedItem {
	side := fc.side.of(it)
	titleKind, summaryKind := fc.titleKind, kindHTML
	if fc.atom != nil && i < len(fc.atom.entries) {
		titleKind, summaryKind = fc.atom.entries[i].title, fc.atom.entries[i].summary
	}
	link, media := itemLink(it, fc.base)
	fi := sources.FeedItem{
		Title:       titleText(it.Title, titleKind),
		URL:         link,
		LinkIsMedia: media,
		GUID:        strings.TrimSpace(it.GUID),
		Author:      itemAuthor(it, side, fc.authors),
		Summary:     itemSummary(it.Description, summaryKind),
		ContentHTML: itemContent(it, side, fc.base),
		Categories:  cleanCategories(it.Categories),
	}
	if fi.ContentHTML == "" {
		// Media-only items (video and photo feeds): the picture and the
		// Media RSS description are the body. A teaser with a thumbnail
		// stays a summary.
		if m := mediaOf(it, fc.base); m.description != "" || fi.Summary == "" {
			fi.ContentHTML = m.html()
		}
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

// itemContent is the item's own body as HTML: plain text escaped into
// paragraphs, binary Atom content never (an out-of-line image by src
// becomes an image).
func itemContent(it *gofeed.Item, side *itemSide, base *url.URL) string {
	switch {
	case side.binaryContent:
		return ""
	case side.contentSrc != "":
		if strings.HasPrefix(strings.ToLower(side.contentType), "image/") {
			if u := urls.Absolute(base, side.contentSrc); u != "" {
				return `<p><img src="` + html.EscapeString(u) + `" alt=""></p>`
			}
		}
		return ""
	case side.plainContent:
		return textToHTML(it.Content)
	}
	return strings.TrimSpace(it.Content)
}

// itemSummary is the summary as HTML. A plain-text summary (Atom's
// default) that holds characters HTML would read differently is escaped
// into paragraphs; other plain text is already HTML that says the same.
func itemSummary(s string, kind textKind) string {
	s = strings.TrimSpace(s)
	if kind == kindText && strings.ContainsAny(s, "<&\n") {
		return textToHTML(s)
	}
	return s
}

// itemAuthor is the first author name the item gives, read as a reader
// shows it, or the feed's author when the item names none.
func itemAuthor(it *gofeed.Item, side *itemSide, feedAuthors []*gofeed.Person) string {
	raws := []string{side.rawAuthor}
	if dc := it.DublinCoreExt; dc != nil {
		raws = append(raws, dc.Creator...)
		raws = append(raws, dc.Author...)
	}
	if it.ITunesExt != nil {
		raws = append(raws, it.ITunesExt.Author)
	}
	people := it.Authors
	if it.Author != nil {
		people = append([]*gofeed.Person{it.Author}, people...)
	}
	people = append(people, feedAuthors...)
	for _, p := range people {
		if p != nil {
			raws = append(raws, p.Name, p.Email)
		}
	}
	for _, r := range raws {
		if name := personText(r, kindHTML); name != "" {
			return name
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
		c = titleText(c, kindHTML)
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
