package rss

import (
	"testing"

	"github.com/feedpoller/feedpoller/sources"
)

// gofeed's Image is never read; the fallback that fills it from an item's
// HTML parses every item a second time, so it is off. What is stored of
// the item (its HTML) is unchanged.
func TestRSSTranslationSkipsTheImageScan(t *testing.T) {
	body := []byte(`<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
<title>T</title><link>https://site.example/</link><description>&lt;img src="https://site.example/logo.png"&gt;</description>
<item><title>A</title><link>https://site.example/a</link>
<description>&lt;p&gt;&lt;img src="https://site.example/d.png"&gt; teaser&lt;/p&gt;</description>
<content:encoded><![CDATA[<p><img src="https://site.example/c.png"> body</p>]]></content:encoded></item>
</channel></rss>`)
	var hints sources.Hints
	feed, err := parseBytes(body, sideTable{}, &hints)
	if err != nil {
		t.Fatal(err)
	}
	if feed.Image != nil || len(feed.Items) != 1 || feed.Items[0].Image != nil {
		t.Fatalf("the HTML was scanned for an image: feed %+v, items %d", feed.Image, len(feed.Items))
	}
	pf, err := parseFeed(body, "application/rss+xml", "", "https://site.example/feed.xml", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := pf.items[0].ContentHTML; got != `<p><img src="https://site.example/c.png"> body</p>` {
		t.Errorf("content %q", got)
	}
}
