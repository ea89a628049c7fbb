package pipeline

import (
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/extract"
)

func TestPlausibleDate(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		t    time.Time
		keep bool
	}{
		{"year 1", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"Unix epoch", time.Unix(0, 0), false},
		{"the day before 1990", time.Date(1989, 12, 31, 23, 0, 0, 0, time.UTC), false},
		{"1990", time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"yesterday", now.Add(-24 * time.Hour), true},
		{"two days ahead", now.Add(48 * time.Hour), true},
		{"a week ahead", now.Add(7 * 24 * time.Hour), false},
		{"year 9999", time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), false},
	}
	for _, tt := range tests {
		got := plausibleDate(&tt.t, now)
		if (got != nil) != tt.keep {
			t.Errorf("%s: kept=%v, want %v", tt.name, got != nil, tt.keep)
		}
	}
	if plausibleDate(nil, now) != nil {
		t.Error("no date became one")
	}
}

func TestCapMarkdown(t *testing.T) {
	long := strings.Repeat("A line of words that goes on.\n", 400) // 12 000 bytes
	tests := []struct {
		name, md string
		limit    int
		check    func(t *testing.T, got string)
	}{
		{"under the cap: untouched", "# Title\n\nBody.", 4096, func(t *testing.T, got string) {
			if got != "# Title\n\nBody." {
				t.Errorf("changed: %q", got)
			}
		}},
		{"cut at a line end, marker names the length", long, 4096, func(t *testing.T, got string) {
			body, _, _ := strings.Cut(got, "\n\n*[Content cut here")
			if !strings.HasSuffix(body, "goes on.") || !strings.Contains(got, "the full text is 12000 bytes") {
				t.Errorf("cut badly: ...%q", got[len(got)-200:])
			}
		}},
		{"never inside a character", strings.Repeat("é", 3000), 4096, func(t *testing.T, got string) {
			if !utf8.ValidString(got) {
				t.Error("cut split a character")
			}
		}},
		{"an open code fence is closed", "Intro\n\n```go\n" + strings.Repeat("x := 1\n", 1000), 4096, func(t *testing.T, got string) {
			body, _, _ := strings.Cut(got, "\n\n*[Content cut here")
			if !strings.HasSuffix(body, "\n```") || openFence(body) {
				t.Errorf("fence left open: ...%q", body[len(body)-40:])
			}
		}},
		{"a cap smaller than the marker leaves the marker", long, 50, func(t *testing.T, got string) {
			if !strings.HasPrefix(got, "*[Content cut here") {
				t.Errorf("got %q", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capMarkdown(tt.md, tt.limit)
			if tt.limit >= 4096 && len(got) > tt.limit {
				t.Errorf("%d bytes, over the cap of %d", len(got), tt.limit)
			}
			tt.check(t, got)
		})
	}
}

func TestSummaryMarkdown(t *testing.T) {
	tests := []struct {
		name, summary string
		isHTML        bool
		want          string
	}{
		{"feed HTML converted", "<p>Read <a href=\"/more\">more</a>.</p>", true, "Read [more](https://news.example.com/more)."},
		{"script dropped", "<p>Plain</p><script>alert(1)</script>", true, "Plain"},
		{"unsafe link scheme dropped", `<a href="javascript:alert(1)">click</a>`, true, "click"},
		{"page description is text, not markup", "Use <b> for bold & more", false, `Use \<b> for bold & more`},
		{"blank", "  \n ", true, ""},
	}
	for _, tt := range tests {
		if got := summaryMarkdown(tt.summary, "https://news.example.com/story", tt.isHTML); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestArticleValues: a feed item's missing fields are filled from its
// page's metadata; a web item is synthesised from the page alone, as
// polled.
func TestArticleValues(t *testing.T) {
	published := time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)
	ex := extraction{markdown: "Body text.", text: "Body text.", method: MethodArticlePage, stats: extract.Stats{WordCount: 2},
		meta: extract.Metadata{Title: "Page title", Author: "Page Author", Description: "Page <description>",
			Published: &published, Language: "de"}}
	p := &Pipeline{opts: Options{MaxMarkdownBytes: 1 << 20}, log: slog.New(slog.DiscardHandler)}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

	feed := p.article(rssSource, item{feed: sources.FeedItem{Title: "  Untitled ", GUID: "g1"}, url: "https://news.example.com/a",
		link: "https://news.example.com/a", ex: ex}, now)
	if feed.Title != "Page title" || feed.Author != "Page Author" || feed.PublishedAt == nil || !feed.PublishedAt.Equal(published) ||
		feed.Summary != `Page \<description>` || feed.Language != "de" || feed.ExternalID == nil || *feed.ExternalID != "g1" ||
		feed.Revision != 1 || feed.WorkspaceID != 1 || feed.ContentMarkdown != "Body text." {
		t.Errorf("feed article %+v", feed)
	}

	web := p.article(webSource, item{feed: sources.FeedItem{Title: "Untitled"}, url: "https://status.example.com/",
		link: "https://status.example.com/", ex: ex}, now)
	if web.Title != "Untitled" || web.Author != "" || web.PublishedAt != nil || web.Summary != "" || web.ExternalID != nil {
		t.Errorf("web article %+v, want the page's fields left as polled", web)
	}

	own := p.article(rssSource, item{feed: sources.FeedItem{Title: "Feed title", Author: "Feed Author", Summary: "<p>Feed summary</p>",
		PublishedAt: &published}, url: "https://news.example.com/b", ex: ex}, now)
	if own.Title != "Feed title" || own.Author != "Feed Author" || own.Summary != "Feed summary" {
		t.Errorf("the feed's own fields were replaced: %+v", own)
	}
}
