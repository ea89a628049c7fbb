package pipeline

import (
	"encoding/base64"
	"encoding/binary"
	"log/slog"
	"testing"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

// googleNewsLink is a Google News link of the older format, whose id
// embeds the publisher's URL.
func googleNewsLink(publisher string) string {
	id := binary.AppendUvarint([]byte{0x08, 0x13, 0x22}, uint64(len(publisher)))
	id = append(append(id, publisher...), 0xd2, 0x01, 0x00)
	return "https://news.google.com/rss/articles/" + base64.RawURLEncoding.EncodeToString(id) + "?oc=5"
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name     string
		src      model.FeedSource
		item     sources.FeedItem
		wantURL  string // "" when the item is skipped
		wantLink string
	}{
		{"link normalised, tracking dropped", rssSource,
			sources.FeedItem{URL: "HTTPS://News.Example.com:443/a/./b?utm_source=x&id=2#top"},
			"https://news.example.com/a/b?id=2", "HTTPS://News.Example.com:443/a/./b?utm_source=x&id=2#top"},
		{"Google News link resolved to the publisher", rssSource,
			sources.FeedItem{URL: googleNewsLink("https://www.example.org/world/story.html")},
			"https://www.example.org/world/story.html", "https://www.example.org/world/story.html"},
		{"web item keyed by the source URL, not the redirect target", webSource,
			sources.FeedItem{URL: "https://status.example.com/landing?session=1"},
			"https://status.example.com/", "https://status.example.com/"},
		{"guid that is a URL stands for a missing link", rssSource,
			sources.FeedItem{GUID: "https://news.example.com/by-guid"},
			"https://news.example.com/by-guid", "https://news.example.com/by-guid"},
		{"no link: keyed by its id, no page to fetch", rssSource,
			sources.FeedItem{GUID: " tag:example.org,2026:1 "},
			"https://news.example.com/feed.xml#tag:example.org,2026:1", ""},
		{"id escaped only where a fragment must be", rssSource,
			sources.FeedItem{GUID: "urn:uuid:0b9f 4a8e"},
			"https://news.example.com/feed.xml#urn:uuid:0b9f%204a8e", ""},
		{"an enclosure is the key but no page to read", rssSource,
			sources.FeedItem{URL: "https://media.example.com/ep12.mp3", LinkIsMedia: true},
			"https://media.example.com/ep12.mp3", ""},
		{"neither link nor id: skipped", rssSource, sources.FeedItem{Title: "Nothing stable"}, "", ""},
		{"unusable link: skipped", rssSource, sources.FeedItem{URL: "ftp://files.example.com/x"}, "", ""},
		{"no link and an unusable source URL: skipped",
			model.FeedSource{ID: 3, WorkspaceID: 1, URL: "not a url", SourceType: model.SourceRSS},
			sources.FeedItem{GUID: "id-1"}, "", ""},
	}
	p := &Pipeline{log: slog.New(slog.DiscardHandler)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, dups := p.normalize(tt.src, []sources.FeedItem{tt.item})
			if dups != 0 {
				t.Fatalf("%d duplicates in a batch of one", dups)
			}
			if tt.wantURL == "" {
				if len(items) != 0 {
					t.Fatalf("kept %+v, want it skipped", items[0])
				}
				return
			}
			if len(items) != 1 || items[0].url != tt.wantURL || items[0].link != tt.wantLink {
				t.Fatalf("got %+v, want url %q and link %q", items, tt.wantURL, tt.wantLink)
			}
		})
	}
}

// TestNormalizeDropsRepeats: an item whose key an earlier item of the
// batch has is a duplicate, whatever its link looked like.
func TestNormalizeDropsRepeats(t *testing.T) {
	p := &Pipeline{log: slog.New(slog.DiscardHandler)}
	items, dups := p.normalize(rssSource, []sources.FeedItem{
		{URL: "https://news.example.com/a", Title: "first"},
		{URL: "https://NEWS.example.com/a?utm_campaign=rss", Title: "same story"},
		{GUID: "tag:x,1", Title: "by id"},
		{GUID: "tag:x,1", Title: "same id"},
		{URL: "https://news.example.com/b", Title: "second"},
	})
	if dups != 2 || len(items) != 3 || items[0].feed.Title != "first" || items[1].feed.Title != "by id" || items[2].feed.Title != "second" {
		t.Fatalf("kept %+v with %d duplicates; want first, by id, second and 2", items, dups)
	}
}
