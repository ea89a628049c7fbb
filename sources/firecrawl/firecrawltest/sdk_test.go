package firecrawltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	firecrawl "github.com/mendableai/firecrawl-go/v2"

	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

const (
	testKey = "fc-test-key"
	target  = "https://example.com/post"
)

var articlePage = firecrawltest.Page{
	HTML: "<h1>My Post Title</h1><p>Body text.</p>",
	Metadata: map[string]any{
		"title":                  "\n  My Post Title  \n",
		"description":            "First, second",
		"ogTitle":                "OG Title",
		"publishedTime":          "2026-11-01T10:00:00Z",
		"article:published_time": "2026-11-01T10:00:00Z",
		"og:image":               []string{"https://example.com/a.png", "https://example.com/b.png"},
		"Title":                  "Meta Title Tag",
	},
	// The raw <meta name="Title"> after title: the SDK's case-insensitive
	// decoding lets it win.
	MetadataOrder: []string{"title", "description", "Title"},
	FinalURL:      "https://example.com/post-final",
}

func newFake(t *testing.T, cfg firecrawltest.Config) *firecrawltest.Server {
	t.Helper()
	if cfg.Credits == 0 {
		cfg.Credits = firecrawltest.Unlimited
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	s := firecrawltest.New(t, cfg)
	s.Handle("example.com", firecrawltest.Success(articlePage))
	return s
}

func sdk(t *testing.T, baseURL, key string) *firecrawl.FirecrawlApp {
	t.Helper()
	app, err := firecrawl.NewFirecrawlApp(key, baseURL, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func htmlParams() *firecrawl.ScrapeParams {
	timeout := 30000
	return &firecrawl.ScrapeParams{Formats: []string{"html"}, Timeout: &timeout}
}

// TestSDKErrorStrings pins the fake to the SDK: each server behaviour must
// come out of the real SDK as the exact error text it gives the real API.
func TestSDKErrorStrings(t *testing.T) {
	cases := []struct {
		name   string
		cfg    firecrawltest.Config
		key    string
		url    string
		setup  func(*firecrawltest.Server)
		params *firecrawl.ScrapeParams
		want   string
	}{
		{name: "400 zod (no TLD)", url: "http://localhost:8080/x",
			want: "Unexpected error during scrape URL: Status code 400. Bad Request"},
		{name: "400 waitFor over half the timeout", params: func() *firecrawl.ScrapeParams {
			p := htmlParams()
			w := 20000
			p.WaitFor = &w
			return p
		}(), want: "Unexpected error during scrape URL: Status code 400. Bad Request"},
		{name: "401 bad key", key: "wrong",
			want: "Unexpected error during scrape URL: Status code 401. Unauthorized: Invalid token"},
		{name: "401 beats 400", key: "wrong", url: "http://localhost/x",
			want: "Unexpected error during scrape URL: Status code 401. Unauthorized: Invalid token"},
		{name: "402", setup: func(s *firecrawltest.Server) { s.SetCredits(0) },
			want: "Payment Required: Failed to scrape URL. Insufficient credits to perform this request. For more credits, you can upgrade your plan at https://firecrawl.dev/pricing or try changing the request limit to a lower value."},
		{name: "403 blocklist", cfg: firecrawltest.Config{Blocklist: []string{"example.com"}},
			want: "Unexpected error during scrape URL: Status code 403. This website is no longer supported, please reach out to help@firecrawl.com for more info on how to activate it on your account."},
		{name: "408 slow target", cfg: firecrawltest.Config{TimeScale: 0.001},
			setup: func(s *firecrawltest.Server) {
				s.Handle(target, firecrawltest.SlowTarget(time.Hour, articlePage))
			},
			want: "Request Timeout: Failed to scrape URL as the request timed out. Scrape timed out"},
		{name: "408 queue", cfg: firecrawltest.Config{TimeScale: 0.001},
			setup: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.QueueTimeout()) },
			want:  "Request Timeout: Failed to scrape URL as the request timed out. Scrape timed out after waiting in the concurrency limit queue"},
		{name: "409", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.ErrorStatus(409, "Job already running")) },
			want: "Conflict: Failed to scrape URL due to a conflict. Job already running"},
		{name: "500 empty page", setup: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.EmptyPage()) },
			want: "Internal Server Error: Failed to scrape URL. All scraping engines failed! -- Double check the URL to make sure it's not broken. If the issue persists, contact us at help@firecrawl.com."},
		{name: "500 dns", setup: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.DNSFailure()) },
			want: "Internal Server Error: Failed to scrape URL. DNS resolution failed for hostname: example.com. Please check if the domain is valid and accessible."},
		{name: "500 with percent", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.ErrorStatus(500, "bad path a%20b")) },
			want: "Internal Server Error: Failed to scrape URL. bad path a%!b(MISSING)"},
		{name: "502 json", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.Gateway(502, firecrawltest.GatewayJSON)) },
			want: "Unexpected error during scrape URL: Status code 502. Bad Gateway"},
		{name: "502 html", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.Gateway(502, firecrawltest.GatewayHTML)) },
			want: "failed to parse error response: invalid character '<' looking for beginning of value"},
		{name: "503 html", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.Gateway(503, firecrawltest.GatewayHTML)) },
			want: "failed to parse error response: invalid character '<' looking for beginning of value"},
		{name: "504 empty", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.Gateway(504, firecrawltest.GatewayEmpty)) },
			want: "failed to parse error response: unexpected end of JSON input"},
		{name: "201", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.SuccessStatus(201)) },
			want: "Unexpected error during scrape URL: Status code 201. No additional error details provided."},
		{name: "200 success false", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.SuccessFalse("engine exploded")) },
			want: "failed to scrape URL"},
		{name: "200 malformed json", setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.MalformedJSON()) },
			want: "unexpected end of JSON input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t, tc.cfg)
			if tc.setup != nil {
				tc.setup(s)
			}
			key, u, params := tc.key, tc.url, tc.params
			if key == "" {
				key = testKey
			}
			if u == "" {
				u = target
			}
			if params == nil {
				params = htmlParams()
			}
			doc, err := sdk(t, s.URL, key).ScrapeURL(u, params)
			if err == nil {
				t.Fatalf("got doc %+v, want error %q", doc, tc.want)
			}
			if doc != nil {
				t.Errorf("doc = %+v alongside an error", doc)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), tc.want)
			}
		})
	}
}

func TestSDKMalformedJSONIsSyntaxError(t *testing.T) {
	s := newFake(t, firecrawltest.Config{})
	s.Enqueue(firecrawltest.MalformedJSON())
	_, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Fatalf("err = %T %v, want *json.SyntaxError", err, err)
	}
}

func TestSDKWrongBasePathIsUnparsable(t *testing.T) {
	s := newFake(t, firecrawltest.Config{})
	// A trailing slash makes the SDK post to //v1/scrape: Express's 404 page.
	_, err := sdk(t, s.URL+"/", testKey).ScrapeURL(target, htmlParams())
	if err == nil || err.Error() != "failed to parse error response: invalid character '<' looking for beginning of value" {
		t.Fatalf("err = %v", err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Path != "//v1/scrape" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestSDKRateLimitMessage(t *testing.T) {
	start := time.Date(2026, 11, 29, 16, 20, 0, 0, time.UTC)
	var mu sync.Mutex
	now := start
	s := newFake(t, firecrawltest.Config{RatePerMinute: 1, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}})
	app := sdk(t, s.URL, testKey)
	if _, err := app.ScrapeURL(target, htmlParams()); err != nil {
		t.Fatalf("first call: %v", err)
	}
	mu.Lock()
	now = start.Add(15 * time.Second)
	mu.Unlock()
	_, err := app.ScrapeURL(target, htmlParams())
	want := "Unexpected error during scrape URL: Status code 429. Rate limit exceeded. Consumed (req/min): 2, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 45s, resets at Sun Nov 29 2026 16:21:00 GMT+0000 (Coordinated Universal Time)"
	if err == nil || err.Error() != want {
		t.Fatalf("err\n got %v\nwant %s", err, want)
	}
	mu.Lock()
	now = start.Add(61 * time.Second)
	mu.Unlock()
	if _, err := app.ScrapeURL(target, htmlParams()); err != nil {
		t.Fatalf("a new window must admit the call: %v", err)
	}
}

func TestRetryAfterHeaderOnlyWhenConfigured(t *testing.T) {
	for _, send := range []bool{false, true} {
		s := newFake(t, firecrawltest.Config{RatePerMinute: 1, SendRetryAfter: send})
		var last *http.Response
		for i := 0; i < 2; i++ {
			resp := post(t, s.URL+"/v1/scrape", "Bearer "+testKey, `{"url":"`+target+`","formats":["html"]}`)
			last = resp
		}
		if last.StatusCode != 429 {
			t.Fatalf("status %d, want 429", last.StatusCode)
		}
		got := last.Header.Get("Retry-After")
		if (got != "") != send {
			t.Errorf("SendRetryAfter=%v: Retry-After %q", send, got)
		}
	}
}

func TestSDKSuccessShapes(t *testing.T) {
	s := newFake(t, firecrawltest.Config{})
	app := sdk(t, s.URL, testKey)
	doc, err := app.ScrapeURL(target, htmlParams())
	if err != nil {
		t.Fatal(err)
	}
	if doc.HTML != articlePage.HTML || doc.Markdown != "" {
		t.Errorf("html %q markdown %q: only the requested format must come back", doc.HTML, doc.Markdown)
	}
	m := doc.Metadata
	if m == nil || m.Title == nil || m.StatusCode == nil || m.SourceURL == nil || m.URL == nil {
		t.Fatalf("metadata = %+v", m)
	}
	// The SDK matches keys case-insensitively: the raw "Title" meta overrides title.
	if *m.Title != "Meta Title Tag" {
		t.Errorf("SDK title = %q; the fake must reproduce the case-insensitive collision", *m.Title)
	}
	if *m.StatusCode != 200 || *m.SourceURL != target || *m.URL != articlePage.FinalURL {
		t.Errorf("statusCode %d sourceURL %q url %q", *m.StatusCode, *m.SourceURL, *m.URL)
	}
	if m.Description == nil || len(*m.Description) != 1 || (*m.Description)[0] != "First, second" {
		t.Errorf("description = %v", m.Description)
	}
	if s.Credits() != firecrawltest.Unlimited {
		t.Errorf("unlimited credits changed to %d", s.Credits())
	}
}

func TestSDKOddSuccesses(t *testing.T) {
	t.Run("no data is (nil, nil)", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.SuccessWithoutData())
		doc, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
		if doc != nil || err != nil {
			t.Fatalf("got (%v, %v), want (nil, nil)", doc, err)
		}
	})
	t.Run("no metadata", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.WithoutMetadata())
		doc, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
		if err != nil || doc == nil || doc.Metadata != nil || doc.HTML == "" {
			t.Fatalf("got (%+v, %v), want a doc with nil Metadata", doc, err)
		}
	})
	t.Run("title array and statusCode string are swallowed", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Handle(target, firecrawltest.Success(firecrawltest.Page{HTML: "<p>x</p>", Metadata: map[string]any{"title": "T"}}))
		s.Enqueue(firecrawltest.TitleArray(), firecrawltest.StatusCodeString())
		app := sdk(t, s.URL, testKey)
		doc, err := app.ScrapeURL(target, htmlParams())
		if err != nil || doc.Metadata == nil || doc.Metadata.Title == nil || *doc.Metadata.Title != "" {
			t.Fatalf("title array: got (%+v, %v)", doc, err)
		}
		doc, err = app.ScrapeURL(target, htmlParams())
		if err != nil || doc.Metadata == nil || doc.Metadata.StatusCode == nil || *doc.Metadata.StatusCode != 0 {
			t.Fatalf("statusCode string: got (%+v, %v)", doc, err)
		}
	})
	t.Run("target 404 is a success", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Handle(target, firecrawltest.TargetStatus(404, firecrawltest.Page{HTML: "<h1>Not Found</h1>", Error: "Not Found"}))
		doc, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
		if err != nil || doc.Metadata == nil || doc.Metadata.StatusCode == nil || *doc.Metadata.StatusCode != 404 {
			t.Fatalf("got (%+v, %v)", doc, err)
		}
		if doc.Metadata.Error == nil || *doc.Metadata.Error != "Not Found" {
			t.Errorf("metadata.error = %v", doc.Metadata.Error)
		}
	})
	t.Run("slow target within budget succeeds", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{TimeScale: 0.001})
		s.Handle(target, firecrawltest.SlowTarget(10*time.Second, articlePage))
		if _, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("oversized body is read whole", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.Oversized(3 << 20))
		doc, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
		if err != nil || len(doc.HTML) != 3<<20 || doc.Metadata == nil {
			t.Fatalf("err %v", err)
		}
	})
}

func TestSDKTransportFaults(t *testing.T) {
	t.Run("timeout before headers", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.SlowHeaders(time.Minute))
		app := sdk(t, s.URL, testKey)
		app.Client.Timeout = 100 * time.Millisecond
		_, err := app.ScrapeURL(target, htmlParams())
		if err == nil || !strings.Contains(err.Error(), "context deadline exceeded (Client.Timeout exceeded while awaiting headers)") ||
			!errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("timeout reading body", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.SlowBody())
		app := sdk(t, s.URL, testKey)
		app.Client.Timeout = 200 * time.Millisecond
		_, err := app.ScrapeURL(target, htmlParams())
		if err == nil || !strings.Contains(err.Error(), "(Client.Timeout or context cancellation while reading body)") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("dropped connection", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.DropConnection())
		_, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
		if err == nil || !strings.Contains(err.Error(), "EOF") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		s := firecrawltest.NewServer(firecrawltest.Config{})
		base := s.URL
		s.Close()
		_, err := sdk(t, base, testKey).ScrapeURL(target, htmlParams())
		if err == nil || !strings.Contains(err.Error(), "connect: connection refused") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("502 is not retried", func(t *testing.T) {
		s := newFake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.Gateway(502, firecrawltest.GatewayHTML))
		_, _ = sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
		if n := len(s.Requests()); n != 1 {
			t.Fatalf("%d requests, want 1", n)
		}
	})
}
