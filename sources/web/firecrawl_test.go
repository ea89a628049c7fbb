package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

const pageURL = "https://example.com/policy"

var scraped = firecrawltest.Page{
	HTML: "<h1>Privacy policy</h1><p>We keep nothing.</p>",
	Metadata: map[string]any{
		"title":          "\n    Privacy policy  \n",
		"Title":          "Colliding meta Title",
		"ogTitle":        "OG title",
		"description":    "What we keep, and why",
		"ogDescription":  "OG description",
		"publishedTime":  "2026-09-15T12:00:00Z",
		"dcDate":         "2020-01-01",
		"author":         "Legal Team",
		"og:image":       []any{"https://example.com/a.png", "https://example.com/b.png"},
		"article:author": "Someone else",
	},
	MetadataOrder: []string{"title", "Title"},
	FinalURL:      "https://www.example.com/policy/v2",
}

func TestFirecrawlFetchMapsOneItem(t *testing.T) {
	s, fc := fakeFirecrawl(t, firecrawltest.Config{})
	s.Handle("example.com", firecrawltest.Success(scraped))
	res, err := (&Fetcher{Firecrawl: fc}).Fetch(context.Background(), sources.Request{URL: pageURL})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Fatalf("%d items", len(res.Items))
	}
	it := res.Items[0]
	if it.Title != "Privacy policy" {
		t.Errorf("title %q: trimmed metadata.title, not the colliding meta Title", it.Title)
	}
	if it.URL != pageURL {
		t.Errorf("URL %q: must be the source URL, not metadata.url", it.URL)
	}
	if it.PublishedAt == nil || !it.PublishedAt.Equal(time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("PublishedAt %v", it.PublishedAt)
	}
	if it.Summary != "What we keep, and why" || it.ContentHTML != scraped.HTML || it.GUID != "" ||
		it.Categories == nil || len(it.Categories) != 0 || it.Author != "Legal Team" {
		t.Errorf("item %+v", it)
	}
	if res.HTTPStatus != 200 || res.FinalURL != scraped.FinalURL || res.FeedTitle != "Privacy policy" || res.NotModified {
		t.Errorf("result %+v", res)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Body["timeout"] != float64(30000) {
		t.Errorf("requests %+v", r)
	}
}

func TestFirecrawlFieldFallbacks(t *testing.T) {
	cases := []struct {
		name      string
		meta      map[string]any
		title     string
		summary   string
		published string // RFC 3339, "" for none
	}{
		{"og fallbacks", map[string]any{"ogTitle": " OG ", "ogDescription": "OG d", "dcDate": "2021-03-04"}, "OG", "OG d", "2021-03-04T00:00:00Z"},
		{"blank title falls through", map[string]any{"title": "  \n ", "ogTitle": "OG"}, "OG", "", ""},
		{"nothing", map[string]any{}, "Untitled", "", ""},
		{"unparsable dates", map[string]any{"title": "T", "publishedTime": "soon", "dcDate": "later"}, "T", "", ""},
		{"repeated description tag", map[string]any{"title": "T", "description": []any{"", "second"}}, "T", "second", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, fc := fakeFirecrawl(t, firecrawltest.Config{})
			s.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: "<p>x</p>", Metadata: tc.meta}))
			res, err := (&Fetcher{Firecrawl: fc}).Fetch(context.Background(), sources.Request{URL: pageURL})
			if err != nil {
				t.Fatal(err)
			}
			it := res.Items[0]
			got := ""
			if it.PublishedAt != nil {
				got = it.PublishedAt.Format(time.RFC3339)
			}
			if it.Title != tc.title || it.Summary != tc.summary || got != tc.published {
				t.Errorf("title %q summary %q published %q", it.Title, it.Summary, got)
			}
		})
	}
}

func TestFirecrawlFailures(t *testing.T) {
	cases := []struct {
		name     string
		cfg      firecrawltest.Config
		setup    func(*firecrawltest.Server)
		kind     sources.ErrorKind
		msg      string
		retrySet bool
	}{
		{name: "target 404", setup: func(s *firecrawltest.Server) {
			s.Handle(pageURL, firecrawltest.TargetStatus(404, firecrawltest.Page{HTML: "<h1>Not found</h1>", Metadata: map[string]any{"title": "404"}}))
		}, kind: sources.KindPermanent, msg: "target answered HTTP 404"},
		{name: "401", setup: func(s *firecrawltest.Server) {}, cfg: firecrawltest.Config{APIKey: "other"},
			kind: sources.KindPaused, msg: "Firecrawl rejected the API key (401)"},
		{name: "402", setup: func(s *firecrawltest.Server) { s.SetCredits(0) },
			kind: sources.KindPaused, msg: "Firecrawl credits exhausted (402)"},
		{name: "429 without Retry-After", cfg: firecrawltest.Config{RatePerMinute: 1},
			setup: func(s *firecrawltest.Server) {},
			kind:  sources.KindRateLimited, msg: "Firecrawl rate limit (429)", retrySet: true},
		{name: "429 with Retry-After", cfg: firecrawltest.Config{RatePerMinute: 1, SendRetryAfter: true},
			setup: func(s *firecrawltest.Server) {},
			kind:  sources.KindRateLimited, msg: "Firecrawl rate limit (429)", retrySet: true},
		{name: "500", setup: func(s *firecrawltest.Server) { s.Handle(pageURL, firecrawltest.UnknownError()) },
			kind: sources.KindTransient, msg: "Firecrawl failed (HTTP 500 UNKNOWN_ERROR)"},
		{name: "all engines failed", setup: func(s *firecrawltest.Server) { s.Handle(pageURL, firecrawltest.EmptyPage()) },
			kind: sources.KindTransient, msg: "Firecrawl could not fetch the page (empty page, unreachable host or DNS failure; HTTP 500 SCRAPE_ALL_ENGINES_FAILED)"},
		{name: "blank page", setup: func(s *firecrawltest.Server) {
			s.Handle(pageURL, firecrawltest.Success(firecrawltest.Page{HTML: "  "}))
		}, kind: sources.KindTransient, msg: "page is empty"},
		{name: "502 html", setup: func(s *firecrawltest.Server) {
			s.Enqueue(firecrawltest.Gateway(502, firecrawltest.GatewayHTML), firecrawltest.Gateway(502, firecrawltest.GatewayHTML), firecrawltest.Gateway(502, firecrawltest.GatewayHTML))
		}, kind: sources.KindTransient, msg: "Firecrawl failed (HTTP 502)"},
		{name: "malformed JSON", setup: func(s *firecrawltest.Server) {
			s.Enqueue(firecrawltest.MalformedJSON(), firecrawltest.MalformedJSON(), firecrawltest.MalformedJSON())
		}, kind: sources.KindTransient, msg: "Firecrawl sent malformed JSON"},
		{name: "success without data", setup: func(s *firecrawltest.Server) {
			s.Enqueue(firecrawltest.SuccessWithoutData(), firecrawltest.SuccessWithoutData(), firecrawltest.SuccessWithoutData())
		}, kind: sources.KindTransient, msg: "Firecrawl answered success without data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, fc := fakeFirecrawl(t, firecrawltest.Config{})
			if tc.cfg.APIKey != "" || tc.cfg.RatePerMinute > 0 {
				cfg := tc.cfg
				if cfg.Credits == 0 {
					cfg.Credits = firecrawltest.Unlimited
				}
				s = firecrawltest.New(t, cfg)
				fc = clientFor(t, s)
			}
			s.Handle("example.com", firecrawltest.Success(scraped))
			tc.setup(s)
			p := &Fetcher{Firecrawl: fc}
			if tc.cfg.RatePerMinute > 0 {
				// Spend the window's only request.
				_, _ = p.Fetch(context.Background(), sources.Request{URL: pageURL})
			}
			res, err := p.Fetch(context.Background(), sources.Request{URL: pageURL})
			if err == nil {
				t.Fatalf("got %+v, want an error", res)
			}
			fe := fetchErr(t, err)
			if fe.Kind != tc.kind || fe.Msg != tc.msg {
				t.Errorf("kind %v msg %q, want %v %q (%v)", fe.Kind, fe.Msg, tc.kind, tc.msg, err)
			}
			if tc.retrySet && !fe.RetryAfter.After(time.Now()) {
				t.Errorf("RetryAfter %v is not in the future", fe.RetryAfter)
			}
		})
	}
}

func TestFirecrawlHangIsFreedByContext(t *testing.T) {
	s, fc := fakeFirecrawl(t, firecrawltest.Config{TimeScale: 1})
	// The target takes longer than any timeout we set: only ctx ends it.
	s.Handle(pageURL, firecrawltest.SlowTarget(time.Hour, scraped))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err := (&Fetcher{Firecrawl: fc}).Fetch(ctx, sources.Request{URL: pageURL})
	fe := fetchErr(t, err)
	if fe.Kind != sources.KindTransient || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("err = %v", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests after the deadline, want 1", n)
	}
}

func TestFirecrawlScrapeTimeoutIs408(t *testing.T) {
	// Firecrawl's own 408 (scrape timeout elapsed, scaled down) is
	// transient, and the next poll is its retry: the poll makes one scrape.
	s, fc := fakeFirecrawl(t, firecrawltest.Config{TimeScale: 0.0001})
	s.Handle(pageURL, firecrawltest.SlowTarget(time.Hour, scraped))
	_, err := (&Fetcher{Firecrawl: fc}).Fetch(context.Background(), sources.Request{URL: pageURL})
	var ae *firecrawl.APIError
	if fe := fetchErr(t, err); fe.Kind != sources.KindTransient || fe.Status != 0 ||
		!errors.As(err, &ae) || ae.Status != http.StatusRequestTimeout || !strings.Contains(err.Error(), "FEEDPOLLER_FIRECRAWL_TIMEOUT") {
		t.Fatalf("err = %v", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d scrape requests, want 1", n)
	}
}
