// Package storyfeeds serves the labelled story set (analysis/stories/testdata) as
// the RSS feeds of its outlets: the same news carried by several sites,
// as syndicated copies in each site's furniture, edited headlines,
// truncated excerpts and rewrites, re-dated into a window that ends when
// the caller says. Tests and demos poll these feeds through the real
// pipeline to get stories, and digests of them, without the internet.
package storyfeeds

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/yuin/goldmark"
)

// Article is one article of the set.
type Article struct {
	ID          string    `json:"id"`
	Event       string    `json:"event"`
	Kind        string    `json:"kind"`
	Outlet      string    `json:"outlet"`
	URL         string    `json:"url"`
	Title       string    `json:"title"`
	Markdown    string    `json:"markdown"`
	PublishedAt time.Time `json:"published_at"`
}

// HTML is the article's Markdown rendered as HTML, as a feed carries it.
func (a Article) HTML() (string, error) {
	var b bytes.Buffer
	if err := goldmark.Convert([]byte(a.Markdown), &b); err != nil {
		return "", fmt.Errorf("render %s: %w", a.ID, err)
	}
	return b.String(), nil
}

// Load reads the set from its JSON file (analysis/stories/testdata/storyset.json).
func Load(path string) ([]Article, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the story set: %w", err)
	}
	var set struct{ Articles []Article }
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("read the story set %s: %w", path, err)
	}
	return set.Articles, nil
}

// Events lists the set's events in the order they first happened.
func Events(arts []Article) []string {
	first := map[string]time.Time{}
	for _, a := range arts {
		if t, ok := first[a.Event]; !ok || a.PublishedAt.Before(t) {
			first[a.Event] = a.PublishedAt
		}
	}
	out := make([]string, 0, len(first))
	for e := range first {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if !first[out[i]].Equal(first[out[j]]) {
			return first[out[i]].Before(first[out[j]])
		}
		return out[i] < out[j]
	})
	return out
}

var datePath = regexp.MustCompile(`/\d{4}/\d{2}/\d{2}/`)

// Redate moves the articles of the given events (all when nil) into the
// span before end: the events evenly spread over it in the order they
// happened, each article keeping its lag behind its event's first report.
// URLs are re-dated as well. The articles come back in that new order.
func Redate(arts []Article, events []string, span time.Duration, end time.Time) []Article {
	if events == nil {
		events = Events(arts)
	}
	first := map[string]time.Time{}
	for _, a := range arts {
		if t, ok := first[a.Event]; !ok || a.PublishedAt.Before(t) {
			first[a.Event] = a.PublishedAt
		}
	}
	start := end.Add(-span)
	step := span / time.Duration(len(events)+1)
	var out []Article
	for i, e := range events {
		at := start.Add(step * time.Duration(i)).Truncate(time.Minute)
		for _, a := range arts {
			if a.Event != e {
				continue
			}
			a.PublishedAt = at.Add(a.PublishedAt.Sub(first[e])).UTC()
			a.URL = datePath.ReplaceAllString(a.URL, a.PublishedAt.Format("/2006/01/02/"))
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].PublishedAt.Before(out[j].PublishedAt) })
	return out
}

// Outlets lists the outlets carrying the articles, sorted.
func Outlets(arts []Article) []string {
	var out []string
	for _, a := range arts {
		if !slices.Contains(out, a.Outlet) {
			out = append(out, a.Outlet)
		}
	}
	slices.Sort(out)
	return out
}

// FeedPath is where Handler serves an outlet's feed.
func FeedPath(outlet string) string {
	return "/feed/" + strings.Trim(nonWord.ReplaceAllString(strings.ToLower(outlet), "-"), "-") + ".xml"
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// Handler serves each outlet's RSS feed at FeedPath(outlet): every one of
// its articles published by the time of the request (now says when that
// is; nil: the clock), newest first, the article as HTML in
// content:encoded and its opening paragraph as the description.
func Handler(arts []Article, now func() time.Time) (http.Handler, error) {
	if now == nil {
		now = time.Now
	}
	type entry struct {
		art  Article
		html string
	}
	byPath := map[string][]entry{}
	titles := map[string]string{}
	for _, a := range arts {
		html, err := a.HTML()
		if err != nil {
			return nil, err
		}
		p := FeedPath(a.Outlet)
		byPath[p] = append(byPath[p], entry{a, html})
		titles[p] = a.Outlet
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entries, ok := byPath[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		t := now()
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
			`<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>`)
		fmt.Fprintf(&b, "<title>%s</title><link>%s</link><description>News from %s</description>",
			esc(titles[r.URL.Path]), esc(siteOf(entries[0].art.URL)), esc(titles[r.URL.Path]))
		for i := len(entries) - 1; i >= 0; i-- {
			e := entries[i]
			if e.art.PublishedAt.After(t) {
				continue
			}
			lead, _, _ := strings.Cut(e.art.Markdown, "\n\n")
			fmt.Fprintf(&b, "<item><title>%s</title><link>%s</link><guid isPermaLink=\"false\">%s</guid><pubDate>%s</pubDate>"+
				"<description>%s</description><content:encoded><![CDATA[%s]]></content:encoded></item>",
				esc(e.art.Title), esc(e.art.URL), esc(e.art.ID), e.art.PublishedAt.UTC().Format(time.RFC1123Z), esc(lead),
				strings.ReplaceAll(e.html, "]]>", "]]]]><![CDATA[>"))
		}
		b.WriteString("</channel></rss>\n")
		w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
		_, _ = w.Write([]byte(b.String()))
	}), nil
}

func siteOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[:i+3+j] + "/"
		}
	}
	return u
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
