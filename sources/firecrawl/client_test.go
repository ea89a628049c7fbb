package firecrawl_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

const (
	key    = "fc-key"
	target = "https://example.com/post"
)

var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

var article = firecrawltest.Page{
	HTML: "<article><h1>My Post Title</h1><p>Some words.</p></article>",
	Metadata: map[string]any{
		"title":         "\n   My Post Title \n",
		"Title":         "Meta Title Tag",
		"description":   "A summary",
		"ogTitle":       "OG Title",
		"publishedTime": "2026-11-01T10:00:00Z",
		"og:image":      []any{"https://example.com/a.png", "https://example.com/b.png"},
	},
	MetadataOrder: []string{"title", "Title"},
	FinalURL:      "https://example.com/post-after-redirect",
}

func fake(t *testing.T, cfg firecrawltest.Config) *firecrawltest.Server {
	t.Helper()
	cfg.APIKey = key
	if cfg.Credits == 0 {
		cfg.Credits = firecrawltest.Unlimited
	}
	s := firecrawltest.New(t, cfg)
	s.Handle("example.com", firecrawltest.Success(article))
	return s
}

// names is the DNS of the tests' address policy: the listed names
// resolve as given, every other name to a public address. Private networks
// are not allowed.
type names map[string]string

func (n names) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ip, ok := n[host]
	if !ok {
		ip = "93.184.215.14"
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

// policy is the address policy a daemon without private networks has,
// over the tests' DNS, with the hosts or networks of allow opened.
func policy(t testing.TB, n names, allow ...string) *fetch.Policy {
	t.Helper()
	p, err := fetch.NewPolicy(fetch.Options{Resolver: n, Allow: allow, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func client(t testing.TB, s *firecrawltest.Server, mod func(*firecrawl.Options)) *firecrawl.Client {
	t.Helper()
	opts := firecrawl.Options{APIKey: key, APIURL: s.URL, Timeout: 30 * time.Second,
		RetryBaseDelay: -1, Now: func() time.Time { return fixedNow }, Policy: policy(t, nil)}
	if mod != nil {
		mod(&opts)
	}
	c, err := firecrawl.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestScrapeSuccess(t *testing.T) {
	s := fake(t, firecrawltest.Config{})
	page, err := client(t, s, nil).Scrape(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if page.HTML != article.HTML || page.StatusCode != 200 || page.FinalURL != article.FinalURL {
		t.Errorf("page = %+v", page)
	}
	// Exact-key decoding: the raw <meta name="Title"> does not replace the
	// page title, which the SDK's own struct would have done.
	if got := page.MetaString("title"); got != "\n   My Post Title \n" {
		t.Errorf("title = %q", got)
	}
	if got := page.MetaString("Title"); got != "Meta Title Tag" {
		t.Errorf("Title = %q", got)
	}
	if got := page.MetaStrings("og:image"); len(got) != 2 {
		t.Errorf("og:image = %v", got)
	}
	if got := page.FirstMeta("missing", "ogTitle"); got != "OG Title" {
		t.Errorf("FirstMeta = %q", got)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	b := reqs[0].Body
	if reqs[0].Header.Get("Authorization") != "Bearer "+key || b["timeout"] != float64(30000) || b["url"] != target {
		t.Errorf("request %v %v", reqs[0].Header, b)
	}
	if f, _ := b["formats"].([]any); len(f) != 1 || f[0] != "html" {
		t.Errorf("formats = %v", b["formats"])
	}
}

func TestScrapeFailures(t *testing.T) {
	cases := []struct {
		name     string
		cfg      firecrawltest.Config
		setup    func(*firecrawltest.Server)
		url      string
		opts     func(*firecrawl.Options)
		kind     sources.ErrorKind
		status   int // FetchError.Status: the target's own status
		api      int // Firecrawl's own HTTP status (APIError), 0: none
		code     string
		msg      string // FetchError.Msg
		contains string // in Error()
		requests int
		retryAt  time.Time
	}{
		{name: "401", opts: func(o *firecrawl.Options) { o.APIKey = "wrong" },
			kind: sources.KindPaused, api: 401, msg: "Firecrawl rejected the API key (401)", contains: "Unauthorized: Invalid token", requests: 1},
		{name: "402", setup: func(s *firecrawltest.Server) { s.SetCredits(0) },
			kind: sources.KindPaused, api: 402, msg: "Firecrawl credits exhausted (402)", contains: "Insufficient credits", requests: 1},
		{name: "400 not retried", url: "http://localhost:8080/x",
			kind: sources.KindPermanent, api: 400, code: "BAD_REQUEST", msg: "Firecrawl rejected the request (400)", contains: "valid top-level domain", requests: 1},
		{name: "403 not retried", cfg: firecrawltest.Config{Blocklist: []string{"example.com"}},
			kind: sources.KindPermanent, api: 403, contains: "no longer supported", requests: 1},
		{name: "429 message delay", setup: func(s *firecrawltest.Server) {
			s.Enqueue(firecrawltest.ErrorStatus(429, "Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 7s, resets at Sun Nov 29 2026 12:00:07 GMT+0000 (Coordinated Universal Time)"))
		}, kind: sources.KindRateLimited, api: 429, msg: "Firecrawl rate limit (429)", requests: 1, retryAt: fixedNow.Add(7 * time.Second)},
		{name: "429 Retry-After header wins", setup: func(s *firecrawltest.Server) {
			f := firecrawltest.ErrorStatus(429, "Rate limit exceeded ... please retry after 7s")
			f.Header = http.Header{"Retry-After": {"30"}}
			s.Enqueue(f)
		}, kind: sources.KindRateLimited, api: 429, requests: 1, retryAt: fixedNow.Add(30 * time.Second)},
		{name: "429 without any hint waits a window", setup: func(s *firecrawltest.Server) {
			s.Enqueue(firecrawltest.ErrorStatus(429, "Too many requests"))
		}, kind: sources.KindRateLimited, api: 429, requests: 1, retryAt: fixedNow.Add(time.Minute)},
		// A timed-out scrape goes on running on the server: trying again
		// within the call would start a second job. The next poll retries.
		{name: "408 not retried", cfg: firecrawltest.Config{TimeScale: 0.0001},
			setup: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.SlowTarget(time.Hour, article)) },
			kind:  sources.KindTransient, api: 408, code: "SCRAPE_TIMEOUT",
			msg:      "Firecrawl scrape timed out (HTTP 408 SCRAPE_TIMEOUT, timeout 30s); the next poll tries again; raise FEEDPOLLER_FIRECRAWL_TIMEOUT if the page needs longer than 30s",
			contains: ": Scrape timed out", requests: 1},
		{name: "408 in the queue not retried", cfg: firecrawltest.Config{TimeScale: 0.0001},
			setup: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.QueueTimeout()) },
			kind:  sources.KindTransient, api: 408, code: "SCRAPE_TIMEOUT", contains: "FEEDPOLLER_FIRECRAWL_TIMEOUT", requests: 1},
		// Firecrawl answers this code for an empty page, a refused
		// connection, an unknown host and an address it blocks alike.
		{name: "500 all engines failed", setup: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.EmptyPage()) },
			kind: sources.KindTransient, api: 500, code: "SCRAPE_ALL_ENGINES_FAILED",
			msg:      "Firecrawl could not fetch the page (empty page, unreachable host or DNS failure; HTTP 500 SCRAPE_ALL_ENGINES_FAILED)",
			contains: "All scraping engines failed", requests: 3},
		{name: "500 unknown", setup: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.UnknownError()) },
			kind: sources.KindTransient, api: 500, code: "UNKNOWN_ERROR", msg: "Firecrawl failed (HTTP 500 UNKNOWN_ERROR)", requests: 3},
		{name: "500 message with percent survives", opts: func(o *firecrawl.Options) { o.Attempts = 1 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.ErrorStatus(500, "no such file a%20b.html")) },
			kind:  sources.KindTransient, api: 500, contains: "no such file a%20b.html", requests: 1},
		{name: "502 html every time", setup: func(s *firecrawltest.Server) {
			for range 3 {
				s.Enqueue(firecrawltest.Gateway(502, firecrawltest.GatewayHTML))
			}
		}, kind: sources.KindTransient, api: 502, msg: "Firecrawl failed (HTTP 502)", contains: "502 Bad Gateway", requests: 3},
		{name: "504 empty body", opts: func(o *firecrawl.Options) { o.Attempts = 1 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.Gateway(504, firecrawltest.GatewayEmpty)) },
			kind:  sources.KindTransient, api: 504, contains: "empty body", requests: 1},
		{name: "malformed JSON", opts: func(o *firecrawl.Options) { o.Attempts = 1 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.MalformedJSON()) },
			kind:  sources.KindTransient, msg: "Firecrawl sent malformed JSON", requests: 1},
		{name: "success without data", opts: func(o *firecrawl.Options) { o.Attempts = 1 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.SuccessWithoutData()) },
			kind:  sources.KindTransient, msg: "Firecrawl answered success without data", requests: 1},
		{name: "success false keeps its message", opts: func(o *firecrawl.Options) { o.Attempts = 1 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.SuccessFalse("engine crashed")) },
			kind:  sources.KindTransient, api: 200, contains: "engine crashed", requests: 1},
		{name: "201", opts: func(o *firecrawl.Options) { o.Attempts = 1 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.SuccessStatus(201)) },
			kind:  sources.KindTransient, api: 201, msg: "Firecrawl answered unexpected HTTP 201", requests: 1},
		{name: "oversized body", opts: func(o *firecrawl.Options) { o.MaxBodyBytes = 1 << 20 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.Oversized(2 << 20)) },
			kind:  sources.KindPermanent, msg: "Firecrawl response exceeds the 1048576-byte limit", requests: 1},
		{name: "dropped connection", opts: func(o *firecrawl.Options) { o.Attempts = 1 },
			setup: func(s *firecrawltest.Server) { s.Enqueue(firecrawltest.DropConnection()) },
			kind:  sources.KindTransient, msg: "Firecrawl request failed", contains: "EOF", requests: 1},
		// The target's own failures arrive as Firecrawl successes: their
		// status is the source's, and Firecrawl's own status is not involved.
		{name: "target 404", setup: func(s *firecrawltest.Server) {
			s.Handle(target, firecrawltest.TargetStatus(404, firecrawltest.Page{HTML: "<h1>Not Found</h1>", Error: "Not Found"}))
		}, kind: sources.KindPermanent, status: 404, msg: "target answered HTTP 404", contains: "Not Found", requests: 1},
		{name: "target 404 with statusCode as string", setup: func(s *firecrawltest.Server) {
			s.Handle(target, firecrawltest.TargetStatus(404, firecrawltest.Page{HTML: "<h1>Not Found</h1>"}))
			s.Enqueue(firecrawltest.StatusCodeString())
		}, kind: sources.KindPermanent, status: 404, msg: "target answered HTTP 404", requests: 1},
		{name: "target 410", setup: func(s *firecrawltest.Server) {
			s.Handle(target, firecrawltest.TargetStatus(410, firecrawltest.Page{HTML: "<h1>Gone</h1>"}))
		}, kind: sources.KindGone, status: 410, msg: "target answered HTTP 410", requests: 1},
		{name: "target 500", setup: func(s *firecrawltest.Server) {
			s.Handle(target, firecrawltest.TargetStatus(500, firecrawltest.Page{HTML: "<h1>Internal Server Error</h1>"}))
		}, kind: sources.KindTransient, status: 500, msg: "target answered HTTP 500", requests: 1},
		{name: "target 503", setup: func(s *firecrawltest.Server) {
			s.Handle(target, firecrawltest.TargetStatus(503, firecrawltest.Page{HTML: "<h1>Down</h1>"}))
		}, kind: sources.KindTransient, status: 503, msg: "target answered HTTP 503", requests: 1},
		{name: "blank html", setup: func(s *firecrawltest.Server) {
			s.Handle(target, firecrawltest.Success(firecrawltest.Page{HTML: " \n "}))
		}, kind: sources.KindTransient, status: 200, msg: "page is empty", requests: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fake(t, tc.cfg)
			if tc.setup != nil {
				tc.setup(s)
			}
			u := tc.url
			if u == "" {
				u = target
			}
			page, err := client(t, s, tc.opts).Scrape(context.Background(), u)
			if err == nil {
				t.Fatalf("got page %+v, want an error", page)
			}
			var fe *sources.FetchError
			if !errors.As(err, &fe) {
				t.Fatalf("err %T %v is not a FetchError", err, err)
			}
			if fe.Kind != tc.kind || fe.Status != tc.status {
				t.Errorf("kind %v status %d, want %v %d (%v)", fe.Kind, fe.Status, tc.kind, tc.status, err)
			}
			var ae *firecrawl.APIError
			if got := errors.As(err, &ae); got != (tc.api != 0) || (got && (ae.Status != tc.api || ae.Code != tc.code)) {
				t.Errorf("Firecrawl's own failure: %v %+v, want status %d code %q", got, ae, tc.api, tc.code)
			}
			if tc.msg != "" && fe.Msg != tc.msg {
				t.Errorf("msg %q, want %q", fe.Msg, tc.msg)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q lacks %q", err.Error(), tc.contains)
			}
			if n := len(s.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if !tc.retryAt.IsZero() && !fe.RetryAfter.Equal(tc.retryAt) {
				t.Errorf("RetryAfter %v, want %v", fe.RetryAfter, tc.retryAt)
			}
		})
	}
}

// TestScrapeRecoversAfterTransientFailure: one bad answer of the proxy or
// the API is retried and the scrape succeeds.
func TestScrapeRecoversAfterTransientFailure(t *testing.T) {
	for name, f := range map[string]firecrawltest.Fault{
		"502 html":       firecrawltest.Gateway(502, firecrawltest.GatewayHTML),
		"503 json":       firecrawltest.Gateway(503, firecrawltest.GatewayJSON),
		"malformed JSON": firecrawltest.MalformedJSON(),
		"no data":        firecrawltest.SuccessWithoutData(),
		"drop":           firecrawltest.DropConnection(),
	} {
		t.Run(name, func(t *testing.T) {
			s := fake(t, firecrawltest.Config{})
			s.Enqueue(f)
			page, err := client(t, s, nil).Scrape(context.Background(), target)
			if err != nil || page.HTML != article.HTML {
				t.Fatalf("page %+v err %v", page, err)
			}
			if n := len(s.Requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
		})
	}
}

func TestScrapeOddSuccesses(t *testing.T) {
	t.Run("no metadata", func(t *testing.T) {
		s := fake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.WithoutMetadata())
		page, err := client(t, s, nil).Scrape(context.Background(), target)
		if err != nil || page.Metadata == nil || len(page.Metadata) != 0 || page.StatusCode != 0 || page.MetaString("title") != "" {
			t.Fatalf("page %+v err %v", page, err)
		}
	})
	t.Run("title array", func(t *testing.T) {
		s := fake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.TitleArray())
		page, err := client(t, s, nil).Scrape(context.Background(), target)
		if err != nil || page.MetaString("title") != "\n   My Post Title \n" {
			t.Fatalf("title %q err %v", page.MetaString("title"), err)
		}
	})
}

func TestScrapeHonoursContext(t *testing.T) {
	t.Run("hang before headers", func(t *testing.T) {
		s := fake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.SlowHeaders(time.Hour))
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		// An hour-long scrape timeout: only ctx can end this call.
		_, err := client(t, s, func(o *firecrawl.Options) { o.Timeout = time.Hour }).Scrape(ctx, target)
		if !errors.Is(err, context.DeadlineExceeded) || sources.KindOf(err) != sources.KindTransient {
			t.Fatalf("err = %v", err)
		}
		if n := len(s.Requests()); n != 1 {
			t.Errorf("%d requests after the deadline, want 1", n)
		}
	})
	t.Run("stalled body", func(t *testing.T) {
		s := fake(t, firecrawltest.Config{})
		s.Enqueue(firecrawltest.SlowBody())
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := client(t, s, func(o *firecrawl.Options) { o.Timeout = time.Hour }).Scrape(ctx, target)
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cut off") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestNewRejectsBadOptions(t *testing.T) {
	t.Setenv("FIRECRAWL_API_KEY", "from-env")
	for _, o := range []firecrawl.Options{
		{APIKey: ""},
		{APIKey: "k", APIURL: "api.firecrawl.dev"},
		{APIKey: "k", APIURL: "ftp://x.example"},
	} {
		if _, err := firecrawl.New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestTrailingSlashOnAPIURL(t *testing.T) {
	s := fake(t, firecrawltest.Config{})
	c := client(t, s, func(o *firecrawl.Options) { o.APIURL = s.URL + "/" })
	if _, err := c.Scrape(context.Background(), target); err != nil {
		t.Fatal(err)
	}
	if p := s.Requests()[0].Path; p != "/v1/scrape" {
		t.Fatalf("path %q", p)
	}
}

func TestRedirectingAPIURLIsReported(t *testing.T) {
	s := fake(t, firecrawltest.Config{})
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.URL+r.URL.Path, http.StatusMovedPermanently)
	}))
	defer redirect.Close()
	_, err := client(t, s, func(o *firecrawl.Options) { o.APIURL = redirect.URL }).Scrape(context.Background(), target)
	if sources.KindOf(err) != sources.KindPermanent || !strings.Contains(err.Error(), "redirects (HTTP 301") {
		t.Fatalf("err = %v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the POST must not be replayed as a GET: %d requests reached the API", n)
	}
}
