package poller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/poller/pipeline"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// TestImplausiblePublicationDatesStoredAsUnknown: dates before 1990 or
// more than two days ahead are placeholders or broken clocks, stored as
// NULL; plausible ones are kept.
func TestImplausiblePublicationDatesStoredAsUnknown(t *testing.T) {
	now := time.Now().UTC()
	cases := []struct {
		name, date string
		keep       bool
	}{
		{"year 1", "Mon, 01 Jan 0001 00:00:00 +0000", false},
		{"year 9999", "Fri, 31 Dec 9999 23:59:59 +0000", false},
		{"Unix epoch", "Thu, 01 Jan 1970 00:00:00 +0000", false},
		{"1989", "Sun, 31 Dec 1989 23:00:00 +0000", false},
		{"a week ahead", now.Add(7 * 24 * time.Hour).Format(time.RFC1123Z), false},
		{"1990", "Mon, 01 Jan 1990 12:00:00 +0000", true},
		{"yesterday", now.Add(-24 * time.Hour).Format(time.RFC1123Z), true},
		{"a day ahead (a time zone written wrongly)", now.Add(24 * time.Hour).Format(time.RFC1123Z), true},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Dates</title>`)
		for i, c := range cases {
			fmt.Fprintf(&b, `<item><title>%s</title><link>https://news.example.com/%d</link><guid>%d</guid><pubDate>%s</pubDate>`+
				`<description><![CDATA[%s]]></description></item>`, c.name, i, i, c.date, body(c.name))
		}
		b.WriteString(`</channel></rss>`)
		e.feeds.set("/feed", b.String())
		if out := e.pollNow(e.addSource("/feed")); out.ItemsNew != len(cases) {
			t.Fatalf("poll %+v", out)
		}
		for i, c := range cases {
			var got *time.Time
			if err := e.store.DB().Get(&got, e.store.DB().Rebind("SELECT published_at FROM feed_articles WHERE external_id = ?"), fmt.Sprint(i)); err != nil {
				t.Fatal(err)
			}
			switch {
			case c.keep && got == nil:
				t.Errorf("%s: the plausible date %s was dropped", c.name, c.date)
			case !c.keep && got != nil:
				t.Errorf("%s: stored %v, want NULL", c.name, got)
			}
		}
	})
}

// bigArticle is an HTML article of about size bytes: numbered paragraphs
// with multi-byte characters, each ending in "end.", so a cut can be seen
// to fall between paragraphs and between characters.
func bigArticle(size int) string {
	var b strings.Builder
	b.WriteString("<h1>A very long story</h1>")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of the golang story: naïve café über 漢字 text, and more words to read before its end.</p>\n", i)
	}
	return b.String()
}

// checkCapped asserts that md was cut under limit at a paragraph's end,
// says so, and is valid UTF-8.
func checkCapped(t *testing.T, what, md string, limit int) {
	t.Helper()
	if len(md) > limit {
		t.Errorf("%s: %d bytes of Markdown stored, over the %d-byte cap", what, len(md), limit)
	}
	if len(md) < limit/2 {
		t.Errorf("%s: only %d bytes stored, want close to the %d-byte cap", what, len(md), limit)
	}
	if !utf8.ValidString(md) {
		t.Errorf("%s: stored Markdown is not valid UTF-8", what)
	}
	kept, marker, ok := strings.Cut(md, "\n\n*[Content cut here:")
	if !ok || !strings.Contains(marker, "bytes of Markdown") {
		t.Errorf("%s: no cut marker at the end: …%q", what, md[max(0, len(md)-200):])
		return
	}
	if !strings.HasSuffix(kept, "before its end.") {
		t.Errorf("%s: cut inside a paragraph: …%q", what, kept[max(0, len(kept)-80):])
	}
}

// TestStoredMarkdownIsCapped: an article of several megabytes is stored
// cut at the cap, with a marker, whichever path its content took: the
// feed's own content, the article page, a Firecrawl render of it, a web
// source fetched natively or through Firecrawl. Its content item holds
// the same capped Markdown.
func TestStoredMarkdownIsCapped(t *testing.T) {
	// Pages of 600 KiB (main-content extraction of a whole page is the
	// slow step) and Firecrawl HTML of 5 MiB, under a 256 KiB cap.
	const capBytes = 256 << 10
	page := func(title string, size int) string {
		return `<html><head><title>` + title + `</title></head><body><article>` + bigArticle(size) + `</article></body></html>`
	}
	capped := func(o *poller.Options, _ *fetch.Options) { o.Pipeline.MaxMarkdownBytes = capBytes }
	forEachDialect(t, func(t *testing.T, dialect string) {
		t.Run("feed content", func(t *testing.T) {
			e := newEnv(t, dialect, model.RelevanceProfile{})
			e.poller = newPoller(t, e.store, "cap", capped)
			e.feeds.set("/feed", rssDoc("Big", entry{"1", "https://news.example.com/big", "Big", bigArticle(2 << 20)}))
			e.pollNow(e.addSource("/feed"))
			checkStored(t, e, capBytes, pipeline.MethodFeedContent)
		})
		t.Run("article page", func(t *testing.T) {
			e := newEnv(t, dialect, model.RelevanceProfile{})
			e.poller = newPoller(t, e.store, "cap", capped)
			e.feeds.set("/big", page("Big", 600<<10))
			e.feeds.set("/feed", rssDoc("Big", entry{"1", e.feeds.named("/big"), "Big", "<p>Teaser.</p>"}))
			e.pollNow(e.addSource("/feed"))
			checkStored(t, e, capBytes, pipeline.MethodArticlePage)
		})
		t.Run("Firecrawl render of the article page", func(t *testing.T) {
			e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{}, maxMarkdown: capBytes})
			e.fc.Handle("news.example.com", firecrawltest.Success(firecrawltest.Page{HTML: bigArticle(5 << 20)}))
			// The page itself is not there (404), so the render tier runs.
			e.feeds.set("/feed", rssDoc("Big", entry{"1", "https://news.example.com/gone", "Big", "<p>Teaser.</p>"}))
			e.pollNow(e.addSource("/feed"))
			checkStored(t, e.env, capBytes, pipeline.MethodRenderedPage)
		})
		t.Run("web source, native", func(t *testing.T) {
			e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{maxMarkdown: capBytes})
			e.site.set("/big", "text/html; charset=utf-8", page("Big", 600<<10))
			e.addWeb(e.site.url("/big"), false)
			e.pollDue()
			checkStored(t, e.env, capBytes, pipeline.MethodPage)
		})
		t.Run("web source, Firecrawl", func(t *testing.T) {
			e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{}, maxMarkdown: capBytes})
			e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: bigArticle(5 << 20),
				Metadata: map[string]any{"title": "Big"}}))
			e.addWeb("https://example.com/big", false)
			e.pollDue()
			checkStored(t, e.env, capBytes, pipeline.MethodPage)
		})
	})
}

// checkStored checks the one stored article and its content item.
func checkStored(t *testing.T, e *env, limit int, method string) {
	t.Helper()
	var arts []struct {
		MD     string `db:"content_markdown"`
		Method string `db:"extraction_method"`
	}
	if err := e.store.DB().Select(&arts, "SELECT content_markdown, extraction_method FROM feed_articles"); err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 {
		t.Fatalf("%d articles stored, want 1", len(arts))
	}
	if arts[0].Method != method {
		t.Errorf("extraction method %s, want %s", arts[0].Method, method)
	}
	checkCapped(t, "article", arts[0].MD, limit)
	var item string
	if err := e.store.DB().GetContext(context.Background(), &item, "SELECT content_markdown FROM content_items"); err != nil {
		t.Fatalf("content item: %v", err)
	}
	if item != arts[0].MD {
		t.Errorf("content item holds %d bytes, the article %d: want the same capped Markdown", len(item), len(arts[0].MD))
	}
}
