package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

// TestCascade: each tier is tried only when the ones before fell short,
// and a failed fetch falls through to the next tier.
func TestCascade(t *testing.T) {
	const link = "https://news.example.com/story"
	short := "<p>Only a teaser here.</p>"
	tests := []struct {
		name        string
		src         model.FeedSource
		item        sources.FeedItem
		link        string
		pages       map[string]string // served by the page fetcher
		rendered    map[string]string // served by the renderer
		wantMethod  string
		wantFetched []string
		wantRenders []string
	}{
		{"feed content enough: no fetch", rssSource, sources.FeedItem{ContentHTML: longHTML("alpha")}, link,
			map[string]string{link: pageHTML("alpha", "")}, nil, MethodFeedContent, nil, nil},
		{"short content: the article page", rssSource, sources.FeedItem{ContentHTML: short}, link,
			map[string]string{link: pageHTML("beta", "")}, nil, MethodArticlePage, []string{link}, nil},
		{"page fails: the rendered page", rssSource, sources.FeedItem{ContentHTML: short}, link,
			nil, map[string]string{link: longHTML("gamma")}, MethodRenderedPage, []string{link}, []string{link}},
		{"every fetch fails: the longest short text", rssSource, sources.FeedItem{ContentHTML: short, Summary: "<p>Brief.</p>"}, link,
			nil, nil, MethodFeedContent, []string{link}, []string{link}},
		{"nothing but a summary", rssSource, sources.FeedItem{Summary: "<p>A summary of the story.</p>"}, link,
			nil, nil, MethodSummary, []string{link}, []string{link}},
		{"an image-only summary beats nothing", rssSource, sources.FeedItem{Summary: `<img src="https://photos.example/1.jpg">`}, "",
			nil, nil, MethodSummary, nil, nil},
		{"no page to read (an enclosure): no fetch", rssSource, sources.FeedItem{ContentHTML: short}, "",
			map[string]string{link: pageHTML("delta", "")}, map[string]string{link: longHTML("delta")}, MethodFeedContent, nil, nil},
		{"web page: its own HTML, never fetched or rendered again", webSource,
			sources.FeedItem{ContentHTML: "<html><body><p>Status: all systems operational.</p></body></html>"}, "https://status.example.com/",
			map[string]string{"https://status.example.com/": pageHTML("status", "")}, map[string]string{"https://status.example.com/": longHTML("status")},
			MethodPage, nil, nil},
		{"web page already main content (Firecrawl)", webSource,
			sources.FeedItem{ContentHTML: longHTML("status"), ContentIsMain: true}, "https://status.example.com/",
			nil, nil, MethodPage, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, render := &fakePages{pages: tt.pages}, &fakePages{pages: tt.rendered}
			p := newTest(t, &fakeLookup{}, pages, render, relevanceNone)
			items := []item{{feed: tt.item, link: tt.link}}
			p.extract(context.Background(), tt.src, items)
			ex := items[0].ex
			if ex.method != tt.wantMethod || ex.markdown == "" {
				t.Errorf("method %q (%d words), want %q", ex.method, ex.words(), tt.wantMethod)
			}
			// The counts are those of the tier kept, counted once the
			// cascade has chosen (the tiers passed over are never counted).
			source := map[string]string{MethodFeedContent: tt.item.ContentHTML, MethodPage: tt.item.ContentHTML,
				MethodArticlePage: tt.pages[tt.link], MethodRenderedPage: tt.rendered[tt.link], MethodSummary: tt.item.Summary}[ex.method]
			cl, err := tokens.For(tokens.CL100kBase)
			if err != nil {
				t.Fatal(err)
			}
			o2, err := tokens.For(tokens.O200kBase)
			if err != nil {
				t.Fatal(err)
			}
			got := [4]int{ex.stats.InputTokens, ex.stats.OutputTokens, ex.stats.InputTokensO200k, ex.stats.OutputTokensO200k}
			want := [4]int{cl.Count(source), cl.Count(ex.markdown), o2.Count(source), o2.Count(ex.markdown)}
			if got != want || want[0] == 0 {
				t.Errorf("tokens (in, out, in o200k, out o200k) %v, want %v: those of the %s tier", got, want, ex.method)
			}
			if got := pages.asked(); !slices.Equal(got, tt.wantFetched) {
				t.Errorf("pages fetched %v, want %v", got, tt.wantFetched)
			}
			if got := render.asked(); !slices.Equal(got, tt.wantRenders) {
				t.Errorf("pages rendered %v, want %v", got, tt.wantRenders)
			}
		})
	}
}

// TestCascadePageMetadata: the article page's own metadata comes with its
// text (for the article's missing fields and its canonical URL).
func TestCascadePageMetadata(t *testing.T) {
	const link = "https://news.example.com/story"
	pages := &fakePages{pages: map[string]string{link: pageHTML("Epsilon",
		`<link rel="canonical" href="/canonical-epsilon"><meta name="author" content="Ada Lovelace">`)}}
	p := newTest(t, &fakeLookup{}, pages, nil, relevanceNone)
	items := []item{{feed: sources.FeedItem{}, link: link}}
	p.extract(context.Background(), rssSource, items)
	if m := items[0].ex.meta; m.CanonicalURL != "https://news.example.com/canonical-epsilon" || m.Author != "Ada Lovelace" {
		t.Errorf("metadata %+v", m)
	}
}

// TestCascadeBudget: a batch fetches at most MaxArticleFetches pages,
// renders included; the rest keep what the feed carried.
func TestCascadeBudget(t *testing.T) {
	pages, render := &fakePages{pages: map[string]string{}}, &fakePages{pages: map[string]string{}}
	var items []item
	for i := range 4 {
		link := fmt.Sprintf("https://news.example.com/%d", i)
		if i != 0 {
			pages.pages[link] = pageHTML(fmt.Sprint("story ", i), "")
		}
		items = append(items, item{feed: sources.FeedItem{ContentHTML: "<p>Teaser.</p>"}, link: link})
	}
	p, err := New(Options{Lookup: &fakeLookup{}, Profiles: fakeProfiles{}, Pages: pages, Render: render, MinWords: 50,
		MaxArticleFetches: 3, MaxMarkdownBytes: 1 << 20, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	p.extract(context.Background(), rssSource, items)
	// Item 0: page fails, render fails (2 fetches); item 1: its page (3);
	// items 2 and 3: the budget is spent.
	want := []string{MethodFeedContent, MethodArticlePage, MethodFeedContent, MethodFeedContent}
	for i, it := range items {
		if it.ex.method != want[i] {
			t.Errorf("item %d: %q, want %q", i, it.ex.method, want[i])
		}
	}
	if n := len(pages.asked()) + len(render.asked()); n != 3 {
		t.Errorf("%d fetches, want 3", n)
	}
}
