package web

import (
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/extract"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
)

// untitled is the title of a page that names none.
const untitled = "Untitled"

// itemFromFirecrawl maps a scrape to the one feed item of a web source:
// title ← title ?? ogTitle ?? "Untitled"; url ← the source URL (not where
// redirects ended); guid ← none; publishedAt ← publishedTime ?? dcDate;
// summary ← description ?? ogDescription; content ← the HTML; no
// categories.
func itemFromFirecrawl(sourceURL string, page *firecrawl.Page) sources.FeedItem {
	return sources.FeedItem{
		Title:         orUntitled(page.FirstMeta("title", "ogTitle")),
		URL:           sourceURL,
		Author:        page.FirstMeta("author", "article:author"),
		PublishedAt:   firstDate(page.MetaString("publishedTime"), page.MetaString("dcDate")),
		Summary:       page.FirstMeta("description", "ogDescription"),
		ContentHTML:   page.HTML,
		ContentIsMain: true,
		Categories:    []string{},
		Language:      page.FirstMeta("language", "ogLocale"),
	}
}

// itemFromPage maps a natively fetched page, whose metadata the extract
// package read (JSON-LD first, then Open Graph, then <meta>/<title>).
func itemFromPage(sourceURL string, html string, meta extract.Metadata) sources.FeedItem {
	return sources.FeedItem{
		Title:       orUntitled(strings.TrimSpace(meta.Title)),
		URL:         sourceURL,
		Author:      strings.TrimSpace(meta.Author),
		PublishedAt: meta.Published,
		Summary:     strings.TrimSpace(meta.Description),
		ContentHTML: html,
		Categories:  []string{},
		Language:    meta.Language,
	}
}

func orUntitled(s string) string {
	if s == "" {
		return untitled
	}
	return s
}

// firstDate parses the first candidate that is a date.
func firstDate(candidates ...string) *time.Time {
	for _, c := range candidates {
		if t, ok := extract.ParseDate(c); ok {
			return &t
		}
	}
	return nil
}
