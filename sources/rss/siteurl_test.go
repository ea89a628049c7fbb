package rss

import (
	"context"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/sources"
)

// TestSiteURL: the site a feed names (RSS channel link, Atom alternate
// link, JSON Feed home_page_url) comes out absolute, and only when it is
// an http(s) URL.
func TestSiteURL(t *testing.T) {
	rssDoc := func(channel string) string {
		return `<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>T</title>` +
			channel + `<item><title>a</title><link>https://site.example/a</link></item></channel></rss>`
	}
	atomDoc := func(links string) string {
		return `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>urn:x</id>` +
			`<updated>2026-03-01T00:00:00Z</updated>` + links +
			`<entry><title>a</title><id>urn:a</id><updated>2026-03-01T00:00:00Z</updated><link href="https://site.example/a"/></entry></feed>`
	}
	jsonDoc := func(home string) string {
		return `{"version":"https://jsonfeed.org/version/1.1","title":"T"` + home +
			`,"items":[{"id":"1","url":"https://site.example/a","content_text":"x"}]}`
	}
	cases := []struct {
		name, contentType, body, path, want string
	}{
		{"rss channel link", "application/rss+xml", rssDoc(`<link>https://site.example/</link>`), "/feed", "https://site.example/"},
		{"rss relative link", "application/rss+xml", rssDoc(`<link>/blog/</link>`), "/feeds/rss", "{srv}/blog/"},
		{"rss atom:link alternate", "application/rss+xml",
			rssDoc(`<atom:link rel="self" href="https://site.example/feed"/><atom:link rel="alternate" href="https://site.example/home"/>`),
			"/feed", "https://site.example/home"},
		{"rss javascript link", "application/rss+xml", rssDoc(`<link>javascript:alert(1)</link>`), "/feed", ""},
		{"rss no link", "application/rss+xml", rssDoc(``), "/feed", ""},
		{"atom alternate", "application/atom+xml",
			atomDoc(`<link rel="self" href="https://site.example/atom.xml"/><link rel="alternate" type="text/html" href="https://site.example/"/>`),
			"/atom.xml", "https://site.example/"},
		{"atom relative alternate", "application/atom+xml", atomDoc(`<link href="/home"/>`), "/atom.xml", "{srv}/home"},
		{"atom javascript alternate", "application/atom+xml", atomDoc(`<link rel="alternate" href="javascript:alert(1)"/>`), "/atom.xml", ""},
		{"atom only self", "application/atom+xml", atomDoc(`<link rel="self" href="https://site.example/atom.xml"/>`), "/atom.xml", ""},
		{"json home_page_url", "application/feed+json", jsonDoc(`,"home_page_url":"https://site.example/"`), "/feed.json", "https://site.example/"},
		{"json data: home", "application/feed+json", jsonDoc(`,"home_page_url":"data:text/html,hi"`), "/feed.json", ""},
		{"json too long", "application/feed+json", jsonDoc(`,"home_page_url":"https://site.example/` + strings.Repeat("a", 2100) + `"`), "/feed.json", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.contentType, tc.body)
			res, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL + tc.path})
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(tc.want, "{srv}", srv.URL); res.SiteURL != want {
				t.Errorf("site URL %q, want %q", res.SiteURL, want)
			}
			if len(res.Items) != 1 {
				t.Errorf("%d items, want 1", len(res.Items))
			}
		})
	}
}
