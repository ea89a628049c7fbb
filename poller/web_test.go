package poller_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/poller/pipeline"
	"github.com/feedpoller/feedpoller/poller/schedule"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/urls"
	"github.com/feedpoller/feedpoller/sources/web"
)

// fcKey is the API key the Firecrawl fake accepts.
const fcKey = "fc-test-key"

// fcAttempts is how often the Firecrawl client tries a transient failure
// within one poll.
const fcAttempts = 3

// siteHost is the name the native fetcher resolves to the loopback page
// site, so page URLs look like real ones (and Firecrawl accepts them).
const siteHost = "news.example.com"

// loopback resolves every name to 127.0.0.1.
type loopback struct{}

func (loopback) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) {
	return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}, nil
}

// page is what the page site answers on one path.
type page struct {
	contentType string
	body        string
	redirect    string // a path to redirect to instead
}

// pageSite serves HTML pages that tests change between polls.
type pageSite struct {
	srv  *httptest.Server
	port string
	mu   sync.Mutex
	page map[string]page
	hits map[string]int
}

func newPageSite(t *testing.T) *pageSite {
	s := &pageSite{page: map[string]page{}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	_, s.port, _ = net.SplitHostPort(s.srv.Listener.Addr().String())
	return s
}

func (s *pageSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	p, ok := s.page[r.URL.Path]
	s.mu.Unlock()
	switch {
	case !ok:
		http.NotFound(w, r)
	case p.redirect != "":
		http.Redirect(w, r, p.redirect, http.StatusFound)
	default:
		w.Header().Set("Content-Type", p.contentType)
		fmt.Fprint(w, p.body)
	}
}

// url is the address of a path under siteHost.
func (s *pageSite) url(path string) string {
	return "http://" + siteHost + ":" + s.port + path
}

func (s *pageSite) set(path, contentType, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.page[path] = page{contentType: contentType, body: body}
}

func (s *pageSite) redirect(from, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.page[from] = page{redirect: to}
}

func (s *pageSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// webEnv is a test database, a poller wired with the RSS and web fetchers
// as the daemon wires them, a page site and, on the Firecrawl path, the
// Firecrawl fake.
type webEnv struct {
	*env
	site *pageSite
	fc   *firecrawltest.Server // nil on the native path
}

// webSetup chooses how the web fetcher gets pages.
type webSetup struct {
	// firecrawl, when set, polls web sources through the fake with this
	// configuration (Credits 0 means Unlimited here).
	firecrawl *firecrawltest.Config
	// clientKey overrides the key the client sends (default fcKey).
	clientKey string
	// maxMarkdown sets the poller's MaxMarkdownBytes (0: the default).
	maxMarkdown int
}

func newWebEnv(t *testing.T, dialect string, profile model.RelevanceProfile, setup webSetup) *webEnv {
	t.Helper()
	e := &webEnv{env: newEnv(t, dialect, profile), site: newPageSite(t)}
	native := fetch.New(fetch.Options{AllowPrivateNetworks: true, Attempts: 1, PerDomainGap: -1,
		PerDomainConcurrency: 64, BreakerFailures: 1 << 20, Timeout: 5 * time.Second, Resolver: loopback{}})
	t.Cleanup(native.CloseIdleConnections)
	webFetcher := &web.Fetcher{Client: native}
	opts := testOptions(e.store, "web-test")
	opts.Workers, opts.BatchSize = 2, 7
	if setup.maxMarkdown != 0 {
		opts.MaxMarkdownBytes = setup.maxMarkdown
	}
	opts.Fetchers = map[string]poller.Fetcher{
		model.SourceRSS: &rss.Fetcher{Client: native},
		model.SourceWeb: webFetcher,
	}
	if setup.firecrawl != nil {
		cfg := *setup.firecrawl
		cfg.APIKey = fcKey
		if cfg.Credits == 0 {
			cfg.Credits = firecrawltest.Unlimited
		}
		e.fc = firecrawltest.New(t, cfg)
		key := setup.clientKey
		if key == "" {
			key = fcKey
		}
		client, err := firecrawl.New(firecrawl.Options{APIKey: key, APIURL: e.fc.URL, Attempts: fcAttempts, RetryBaseDelay: -1,
			Policy: native.Policy()})
		if err != nil {
			t.Fatal(err)
		}
		webFetcher.Firecrawl = client
		// As the daemon wires it: the cascade's rendering tier is the same
		// Firecrawl client.
		opts.Render = pipeline.FirecrawlPages{Client: client}
	}
	p, err := poller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.poller = p
	return e
}

// addWeb adds an active web source with the web default interval.
func (e *webEnv) addWeb(url string, trackChanges bool) *model.FeedSource {
	e.t.Helper()
	src := &model.FeedSource{WorkspaceID: e.ws.ID, URL: url, SourceType: model.SourceWeb, IsActive: true,
		PollingIntervalMinutes: 360, TrackChanges: trackChanges}
	if err := e.store.CreateSource(context.Background(), src); err != nil {
		e.t.Fatal(err)
	}
	return src
}

func (e *webEnv) source(src *model.FeedSource) *model.FeedSource {
	e.t.Helper()
	got, err := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return got
}

// articles lists a source's articles, oldest first.
func (e *webEnv) articles(src *model.FeedSource) []model.FeedArticle {
	e.t.Helper()
	arts, err := e.store.ListArticles(context.Background(), e.ws.ID, model.ListFilter{SourceID: src.ID, Limit: model.MaxPageSize})
	if err != nil {
		e.t.Fatal(err)
	}
	for i, j := 0, len(arts)-1; i < j; i, j = i+1, j-1 {
		arts[i], arts[j] = arts[j], arts[i]
	}
	return arts
}

// makeDue moves a source's next poll into the past, as time passing would.
func (e *webEnv) makeDue(src *model.FeedSource) {
	e.t.Helper()
	e.store.DB().MustExec(e.store.DB().Rebind("UPDATE feed_sources SET next_poll_at = ? WHERE id = ?"),
		time.Now().Add(-time.Minute).UTC(), src.ID)
}

// pollDue runs one scheduler pass and returns the outcomes.
func (e *webEnv) pollDue() []model.PollOutcome {
	e.t.Helper()
	var outs []model.PollOutcome
	err := e.poller.PollDue(context.Background(), func(o model.PollOutcome, err error) {
		if err != nil {
			e.t.Errorf("poll of source %d not recorded: %v", o.SourceID, err)
		}
		outs = append(outs, o)
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return outs
}

func normalized(t *testing.T, raw string) string {
	t.Helper()
	u, err := urls.Normalize(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// paragraphs is article text about topic, long enough for the first
// cascade tier.
func paragraphs(topic string) string {
	var b strings.Builder
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of the notes explains %s with enough plain words that a reader, "+
			"and the extraction cascade, sees a real article body here.</p>\n", i, topic)
	}
	return b.String()
}

// fullPage is a whole HTML page as a site serves it: metadata in the head,
// navigation, the article, a sidebar, a form and a footer. volatile goes
// where pages put timestamps and tokens: a script, a hidden input, the
// sidebar and the footer.
func fullPage(title, article, volatile string) string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>` + title + ` | Example News</title>
<meta name="description" content="Plain meta description">
<meta property="og:title" content="OG ` + title + `">
<meta property="og:description" content="What the page is about">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"` + title + `",
"datePublished":"2026-03-01T09:30:00Z","author":{"@type":"Person","name":"Ada Writer"}}</script>
<script>window.__csrf = "` + volatile + `"; window.__renderedAt = "` + volatile + `";</script>
</head><body>
<header><nav><a href="/">Home</a> <a href="/world">World</a> <a href="/tech">Tech</a> <a href="/about">About us</a></nav></header>
<main><article><h1>` + title + `</h1>
` + article + `
</article></main>
<aside><h3>Site status</h3><p>Page generated at ` + volatile + `</p></aside>
<form action="/subscribe" method="post"><input type="hidden" name="csrf" value="` + volatile + `"><button>Subscribe</button></form>
<footer><p>© 2026 Example News. Last rendered ` + volatile + `.</p></footer>
</body></html>`
}

var webProfile = model.RelevanceProfile{Keywords: []model.Keyword{{Term: "golang", Weight: 1}}, Threshold: 0.3}

// A web poll through Firecrawl: one feed item synthesised from the page's
// metadata (title, else og:title, else "Untitled"; the source URL, no
// GUID; the published time if any; the description as summary), stored
// as one article, promoted when relevant.
func TestWebFirecrawlPollStoresOneArticle(t *testing.T) {
	published := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		meta      map[string]any
		html      string
		title     string
		summary   string
		published *time.Time
		promoted  int
		language  string
	}{
		{name: "metadata title, description, publishedTime", meta: map[string]any{
			"title": "\n   Golang release notes  \n", "ogTitle": "OG title", "description": "What changed in Golang",
			"ogDescription": "OG description", "publishedTime": "2026-09-15T12:00:00Z", "dcDate": "2020-01-01",
			"language": "en-GB",
		}, html: "<h2>Golang release notes</h2>" + paragraphs("the golang release"),
			title: "Golang release notes", summary: "What changed in Golang", published: &published, promoted: 1,
			language: "en-GB"},
		{name: "Open Graph and dcDate fallbacks", meta: map[string]any{
			"ogTitle": "Golang tooling", "ogDescription": "OG description", "dcDate": "2026-09-15T12:00:00Z",
		}, html: paragraphs("golang tooling"), title: "Golang tooling", summary: "OG description", published: &published, promoted: 1},
		{name: "nothing named: Untitled", meta: map[string]any{},
			html:  "<h1>Gardening weekly</h1>" + paragraphs("tomatoes and compost"),
			title: "Untitled", summary: "", published: nil, promoted: 0},
		{name: "not relevant", meta: map[string]any{"title": "Gardening weekly", "description": "Tomatoes"},
			html: paragraphs("tomatoes and compost"), title: "Gardening weekly", summary: "Tomatoes", promoted: 0},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := newWebEnv(t, dialect, webProfile, webSetup{firecrawl: &firecrawltest.Config{}})
				const target = "https://example.com/page"
				e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: tc.html, Metadata: tc.meta,
					FinalURL: "https://www.example.com/page/moved"}))
				src := e.addWeb(target, false)

				outs := e.pollDue()
				if len(outs) != 1 || outs[0].Status != model.StatusOK || outs[0].ItemsNew != 1 || outs[0].ItemsPromoted != tc.promoted {
					t.Fatalf("poll %+v, want one ok poll storing 1 article and promoting %d", outs, tc.promoted)
				}
				arts := e.articles(src)
				if len(arts) != 1 {
					t.Fatalf("%d articles, want 1", len(arts))
				}
				a := arts[0]
				if a.Title != tc.title {
					t.Errorf("title %q, want %q", a.Title, tc.title)
				}
				if a.ExternalURL != target {
					t.Errorf("url %q, want the source URL %q (not the redirect target or sourceURL)", a.ExternalURL, target)
				}
				if a.ExternalID != nil {
					t.Errorf("guid %q, want NULL", *a.ExternalID)
				}
				if a.Summary != tc.summary {
					t.Errorf("summary %q, want %q", a.Summary, tc.summary)
				}
				if a.Language != tc.language {
					t.Errorf("language %q, want %q from Firecrawl's metadata", a.Language, tc.language)
				}
				switch {
				case tc.published == nil && a.PublishedAt != nil:
					t.Errorf("published_at %v, want NULL", a.PublishedAt)
				case tc.published != nil && (a.PublishedAt == nil || !a.PublishedAt.Equal(*tc.published)):
					t.Errorf("published_at %v, want %v", a.PublishedAt, tc.published)
				}
				if a.ExtractionMethod != pipeline.MethodPage || a.WordCount < 50 {
					t.Errorf("extraction %q with %d words, want the polled page's HTML converted", a.ExtractionMethod, a.WordCount)
				}
				if n := e.count("content_items"); n != tc.promoted {
					t.Errorf("%d content items, want %d", n, tc.promoted)
				}
				if got := e.source(src); got.LastPolledStatus != model.StatusOK || got.ConsecutiveFailures != 0 {
					t.Errorf("source status %q failures %d", got.LastPolledStatus, got.ConsecutiveFailures)
				}
				if n := len(e.fc.Requests()); n != 1 {
					t.Errorf("%d Firecrawl requests for one poll, want 1", n)
				}
			})
		}
	})
}

// A web poll through the native fetcher: metadata from the page itself (JSON-LD first,
// then Open Graph, then <meta>/<title>); the article is keyed by the source
// URL even when the page redirects.
func TestWebNativePollStoresOneArticle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newWebEnv(t, dialect, webProfile, webSetup{})
		e.site.set("/golang/notes", "text/html; charset=utf-8",
			fullPage("Golang field notes", paragraphs("golang field work"), "2026-11-29T10:00:00Z"))
		e.site.redirect("/notes", "/golang/notes")
		e.site.set("/garden", "text/html", fullPage("Garden diary", paragraphs("tomatoes and compost"), "x"))
		relevant := e.addWeb(e.site.url("/notes"), false)
		irrelevant := e.addWeb(e.site.url("/garden"), false)

		outs := e.pollDue()
		if len(outs) != 2 {
			t.Fatalf("%d polls, want 2", len(outs))
		}
		arts := e.articles(relevant)
		if len(arts) != 1 {
			t.Fatalf("%d articles, want 1", len(arts))
		}
		a := arts[0]
		want := normalized(t, e.site.url("/notes"))
		if a.ExternalURL != want {
			t.Errorf("url %q, want the source URL %q, not the redirect target", a.ExternalURL, want)
		}
		if a.Title != "Golang field notes" || a.Summary != "What the page is about" || a.Author != "Ada Writer" || a.ExternalID != nil {
			t.Errorf("title %q summary %q author %q guid %v: want JSON-LD headline and author, Open Graph description, no guid",
				a.Title, a.Summary, a.Author, a.ExternalID)
		}
		if a.Language != "en" {
			t.Errorf("language %q, want the page's <html lang>", a.Language)
		}
		if a.PublishedAt == nil || !a.PublishedAt.Equal(time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)) {
			t.Errorf("published_at %v, want the JSON-LD datePublished", a.PublishedAt)
		}
		if a.ExtractionMethod != pipeline.MethodPage || !strings.Contains(a.ContentMarkdown, "Paragraph 5 of the notes") {
			t.Errorf("extraction %q:\n%s", a.ExtractionMethod, a.ContentMarkdown)
		}
		for _, nav := range []string{"About us", "Subscribe", "Page generated"} {
			if strings.Contains(a.ContentMarkdown, nav) {
				t.Errorf("page chrome %q stored as content:\n%s", nav, a.ContentMarkdown)
			}
		}
		if got := e.site.count("/golang/notes"); got != 1 {
			t.Errorf("page fetched %d times in one poll, want 1 (the cascade reuses the polled HTML)", got)
		}
		if n := len(e.articles(irrelevant)); n != 1 {
			t.Errorf("irrelevant page: %d articles, want 1", n)
		}
		var promoted []string
		if err := e.store.DB().Select(&promoted, "SELECT url FROM content_items"); err != nil {
			t.Fatal(err)
		}
		if len(promoted) != 1 || promoted[0] != want {
			t.Errorf("promoted %q, want only the relevant page", promoted)
		}
	})
}

// Polling an unchanged page again stores nothing new, on both paths.
func TestWebRepollIsOneArticle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, path := range []string{"native", "firecrawl"} {
			t.Run(path, func(t *testing.T) {
				setup := webSetup{}
				if path == "firecrawl" {
					setup.firecrawl = &firecrawltest.Config{}
				}
				e := newWebEnv(t, dialect, model.RelevanceProfile{}, setup)
				var src *model.FeedSource
				if e.fc != nil {
					e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: paragraphs("a policy"),
						Metadata: map[string]any{"title": "Policy"}}))
					src = e.addWeb("https://example.com/policy", false)
				} else {
					e.site.set("/policy", "text/html", fullPage("Policy", paragraphs("a policy"), "t1"))
					src = e.addWeb(e.site.url("/policy"), false)
				}
				first := e.pollNow(src)
				second := e.pollNow(src)
				if first.ItemsNew != 1 || second.Status != model.StatusOK || second.ItemsNew != 0 || second.ItemsDuplicate != 1 {
					t.Fatalf("polls %+v then %+v, want 1 new then 1 duplicate", first, second)
				}
				if n := e.count("feed_articles"); n != 1 {
					t.Fatalf("%d articles after two polls, want 1", n)
				}
				if n := e.count("content_items"); n != 1 {
					t.Fatalf("%d content items after two polls, want 1", n)
				}
			})
		}
	})
}

// Every Firecrawl failure is an error poll that names its reason,
// counts one failure, and is retried once the backoff has passed; a
// success then resets the counter.
func TestWebFirecrawlFailureIsRecordedAndRetried(t *testing.T) {
	const target = "https://example.com/policy"
	good := firecrawltest.Page{HTML: paragraphs("the privacy policy"), Metadata: map[string]any{"title": "Privacy policy"}}
	cases := []struct {
		name      string
		clientKey string
		fail      func(s *firecrawltest.Server) // before each failing poll
		fix       func(s *firecrawltest.Server) // nil: the client's key stays wrong
		reason    string
	}{
		{name: "500", fail: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.UnknownError()) },
			fix: func(*firecrawltest.Server) {}, reason: "Firecrawl failed (HTTP 500 UNKNOWN_ERROR)"},
		{name: "502 with an HTML page", fail: func(s *firecrawltest.Server) {
			for range fcAttempts {
				s.Enqueue(firecrawltest.Gateway(http.StatusBadGateway, firecrawltest.GatewayHTML))
			}
		}, fix: func(*firecrawltest.Server) {}, reason: "Firecrawl failed (HTTP 502)"},
		{name: "target 404 reported as success", fail: func(s *firecrawltest.Server) {
			s.Handle(target, firecrawltest.TargetStatus(404, firecrawltest.Page{HTML: "<h1>Not found</h1>", Metadata: map[string]any{"title": "Not found"}}))
		}, fix: func(*firecrawltest.Server) {}, reason: "target answered HTTP 404"},
		{name: "all engines failed", fail: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.EmptyPage()) },
			fix: func(*firecrawltest.Server) {}, reason: "Firecrawl could not fetch the page (empty page, unreachable host or DNS failure; HTTP 500 SCRAPE_ALL_ENGINES_FAILED)"},
		{name: "timeout", fail: func(s *firecrawltest.Server) { s.Handle(target, firecrawltest.SlowTarget(time.Hour, good)) },
			fix: func(*firecrawltest.Server) {}, reason: "Firecrawl scrape timed out (HTTP 408 SCRAPE_TIMEOUT"},
		{name: "402 no credits", fail: func(s *firecrawltest.Server) { s.SetCredits(0) },
			fix: func(s *firecrawltest.Server) { s.SetCredits(firecrawltest.Unlimited) }, reason: "Firecrawl credits exhausted (402)"},
		{name: "401 bad key", clientKey: "revoked-key", fail: func(s *firecrawltest.Server) {},
			reason: "Firecrawl rejected the API key (401)"},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				// Scaled time: Firecrawl's 30 s scrape timeout lasts 3 ms.
				e := newWebEnv(t, dialect, model.RelevanceProfile{},
					webSetup{firecrawl: &firecrawltest.Config{TimeScale: 0.0001}, clientKey: tc.clientKey})
				e.fc.Handle("example.com", firecrawltest.Success(good))
				src := e.addWeb(target, false)

				tc.fail(e.fc)
				out := e.pollNow(src)
				got := e.source(src)
				if out.Status != model.StatusError || got.LastPolledStatus != model.StatusError {
					t.Fatalf("outcome %+v, source status %q: want error", out, got.LastPolledStatus)
				}
				if !strings.Contains(got.LastPolledError, tc.reason) {
					t.Errorf("last_polled_error %q does not name %q", got.LastPolledError, tc.reason)
				}
				if got.ConsecutiveFailures != 1 {
					t.Errorf("consecutive_failures %d, want 1", got.ConsecutiveFailures)
				}
				if n := e.count("feed_articles"); n != 0 {
					t.Errorf("%d articles stored by a failed poll", n)
				}
				// Backing off: not due straight away.
				if outs := e.pollDue(); len(outs) != 0 {
					t.Fatalf("polled again at once: %+v", outs)
				}
				// The next poll comes once next_poll_at has passed.
				tc.fail(e.fc)
				e.makeDue(src)
				outs := e.pollDue()
				if len(outs) != 1 || outs[0].SourceID != src.ID || outs[0].Status != model.StatusError {
					t.Fatalf("retry %+v, want the source polled again and failing", outs)
				}
				if f := e.source(src).ConsecutiveFailures; f != 2 {
					t.Errorf("consecutive_failures after the retry %d, want 2", f)
				}
				if tc.fix == nil {
					return
				}
				tc.fix(e.fc)
				e.fc.Handle(target, firecrawltest.Success(good))
				e.makeDue(src)
				if outs := e.pollDue(); len(outs) != 1 || outs[0].Status != model.StatusOK || outs[0].ItemsNew != 1 {
					t.Fatalf("recovery %+v, want one ok poll storing the page", outs)
				}
				if got := e.source(src); got.ConsecutiveFailures != 0 || got.LastPolledError != "" {
					t.Errorf("after a success: failures %d error %q, want 0 and none", got.ConsecutiveFailures, got.LastPolledError)
				}
			})
		}
	})
}

// Rate limits: a 429 defers the source until Retry-After (header or
// Firecrawl's "retry after Ns" text), counts no failure, and is not retried
// before then.
func TestWebFirecrawlRateLimitDefers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, header := range []bool{true, false} {
			t.Run(fmt.Sprintf("Retry-After header %v", header), func(t *testing.T) {
				var mu sync.Mutex
				fakeNow := time.Now()
				clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return fakeNow }
				e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{
					RatePerMinute: 1, SendRetryAfter: header, Now: clock}})
				e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: paragraphs("limits"),
					Metadata: map[string]any{"title": "Limits"}}))
				src := e.addWeb("https://example.com/limits", false)
				if out := e.pollNow(src); out.Status != model.StatusOK {
					t.Fatalf("first poll %+v", out)
				}
				// 45 s into the one-request window: Firecrawl asks for 15 s.
				mu.Lock()
				fakeNow = fakeNow.Add(45 * time.Second)
				mu.Unlock()
				out := e.pollNow(src)
				got := e.source(src)
				if out.Status != model.StatusDeferred || got.LastPolledStatus != model.StatusDeferred {
					t.Fatalf("outcome %+v, status %q: want deferred", out, got.LastPolledStatus)
				}
				if !strings.Contains(got.LastPolledError, "429") || got.ConsecutiveFailures != 0 {
					t.Errorf("error %q failures %d: want the 429 recorded and no failure counted", got.LastPolledError, got.ConsecutiveFailures)
				}
				// Firecrawl asked for 15 s; a retry is never sooner than
				// the floor.
				if iv := got.NextPollAt.Sub(*got.LastPolledAt); iv < schedule.DefaultFloor-time.Millisecond ||
					iv > schedule.DefaultFloor+time.Millisecond || !strings.HasPrefix(got.NextPollReason, "retry-after 15s, raised to floor 5m") {
					t.Errorf("next poll %v after the poll (%q), want the floor after Firecrawl's 15 s", iv, got.NextPollReason)
				}
				sent := len(e.fc.Requests())
				if outs := e.pollDue(); len(outs) != 0 || len(e.fc.Requests()) != sent {
					t.Errorf("a deferred source was polled again before Retry-After: %+v", outs)
				}
			})
		}
	})
}

// After ten failures a web source is no longer due; switching it off
// and on again resets the counter and makes it due at once.
func TestWebTenFailuresExcludeUntilReactivated(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{}})
		const target = "https://example.com/status"
		e.fc.Handle(target, firecrawltest.EmptyPage())
		src := e.addWeb(target, false)
		for i := 1; i <= model.MaxConsecutiveFailures; i++ {
			e.makeDue(src)
			outs := e.pollDue()
			if len(outs) != 1 || outs[0].Status != model.StatusError {
				t.Fatalf("failing poll %d: %+v", i, outs)
			}
		}
		if f := e.source(src).ConsecutiveFailures; f != model.MaxConsecutiveFailures {
			t.Fatalf("consecutive_failures %d, want %d", f, model.MaxConsecutiveFailures)
		}
		e.makeDue(src)
		sent := len(e.fc.Requests())
		if outs := e.pollDue(); len(outs) != 0 || len(e.fc.Requests()) != sent {
			t.Fatalf("a source at %d failures was polled: %+v", model.MaxConsecutiveFailures, outs)
		}

		off, on := false, true
		if _, err := e.store.UpdateSource(ctx, e.ws.ID, src.ID, model.SourcePatch{IsActive: &off}); err != nil {
			t.Fatal(err)
		}
		got, err := e.store.UpdateSource(ctx, e.ws.ID, src.ID, model.SourcePatch{IsActive: &on})
		if err != nil {
			t.Fatal(err)
		}
		if got.ConsecutiveFailures != 0 || got.NextPollAt.After(time.Now()) {
			t.Fatalf("after reactivation: failures %d next_poll_at %v, want 0 and due now", got.ConsecutiveFailures, got.NextPollAt)
		}
		e.fc.Handle(target, firecrawltest.Success(firecrawltest.Page{HTML: paragraphs("service status"), Metadata: map[string]any{"title": "Status"}}))
		outs := e.pollDue()
		if len(outs) != 1 || outs[0].Status != model.StatusOK || outs[0].ItemsNew != 1 {
			t.Fatalf("after reactivation %+v, want the source polled and its page stored", outs)
		}
	})
}

// Firecrawl's HTML becomes Markdown once: headings stay headings, links
// stay links, tables stay tables, nothing is escaped twice.
func TestWebFirecrawlHTMLBecomesCleanMarkdown(t *testing.T) {
	html := `<h1>Release notes</h1>
<p>Version 2 brings <strong>faster builds</strong> and <em>smaller binaries</em>. Read <a href="/docs/install">the install guide</a>
or the <a href="https://blog.example.org/v2">team blog</a> &amp; share it with colleagues who care about speed.</p>
<h2>Breaking changes</h2>
<ul><li>The <code>-legacy</code> flag is gone.</li><li>Config files move to <code>~/.config</code>.</li></ul>
<pre><code class="language-go">if a &lt; b &amp;&amp; ok {
	fmt.Println("done")
}</code></pre>
<h2>Defaults</h2>
<table><thead><tr><th>Flag</th><th>Default</th></tr></thead>
<tbody><tr><td>-race</td><td>off</td></tr><tr><td>-trimpath</td><td>on</td></tr></tbody></table>
` + paragraphs("the version 2 release")
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{}})
		e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: html, Metadata: map[string]any{"title": "Release notes"}}))
		src := e.addWeb("https://example.com/releases/v2", false)
		if out := e.pollNow(src); out.ItemsNew != 1 {
			t.Fatalf("poll %+v", out)
		}
		md := e.articles(src)[0].ContentMarkdown
		for _, want := range []string{
			"# Release notes\n", "## Breaking changes", "## Defaults", "- The `-legacy` flag is gone.",
			"**faster builds**", "*smaller binaries*",
			"[the install guide](https://example.com/docs/install)", "[team blog](https://blog.example.org/v2)",
			"`-legacy`", "```go\nif a < b && ok {",
			"| Flag | Default |", "| -race | off |", "| -trimpath | on |",
			"& share",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("markdown lacks %q", want)
			}
		}
		for _, bad := range []string{`\#`, `\[`, `\]`, `\*`, `\|`, `\_`, "&amp;", "&#"} {
			if strings.Contains(md, bad) {
				t.Errorf("markdown is double-escaped (%q)", bad)
			}
		}
		if t.Failed() {
			t.Logf("markdown:\n%s", md)
		}
	})
}

// track_changes: an edit of the page's main text is a new revision linked
// to the previous one; timestamps and tokens outside it are not; without
// track_changes an edited page stays one article.
func TestWebTrackChanges(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{})
		original := paragraphs("how long we keep your data")
		edited := strings.Replace(original, "Paragraph 3 of the notes explains", "Paragraph 3, revised in November, now explains", 1)
		e.site.set("/policy", "text/html", fullPage("Privacy policy", original, "2026-11-29T10:00:00Z tok-a1b2c3"))
		e.site.set("/terms", "text/html", fullPage("Terms", original, "2026-11-29T10:00:00Z"))
		tracked := e.addWeb(e.site.url("/policy"), true)
		untracked := e.addWeb(e.site.url("/terms"), false)
		e.pollNow(tracked)
		e.pollNow(untracked)

		// Only the volatile fragments change: no new revision.
		e.site.set("/policy", "text/html", fullPage("Privacy policy", original, "2026-11-29T16:45:12Z tok-zz9y8x"))
		if out := e.pollNow(tracked); out.ItemsNew != 0 || out.ItemsDuplicate != 1 {
			t.Errorf("poll after a timestamp/token change %+v, want no new revision", out)
		}
		if arts := e.articles(tracked); len(arts) != 1 {
			t.Fatalf("%d revisions after a timestamp/token change, want 1", len(arts))
		}

		// The main text changes: revision 2, linked to revision 1.
		e.site.set("/policy", "text/html", fullPage("Privacy policy", edited, "2026-11-30T08:00:00Z tok-q1w2e3"))
		if out := e.pollNow(tracked); out.ItemsNew != 1 {
			t.Errorf("poll after an edit %+v, want a new revision", out)
		}
		arts := e.articles(tracked)
		if len(arts) != 2 {
			t.Fatalf("%d revisions after an edit, want 2", len(arts))
		}
		r1, r2 := arts[0], arts[1]
		if r1.Revision != 1 || r2.Revision != 2 || r2.ExternalURL != r1.ExternalURL ||
			r2.PreviousArticleID == nil || *r2.PreviousArticleID != r1.ID {
			t.Errorf("revisions %d (id %d) and %d (previous %v), url %q vs %q: want 1 then 2 linked to 1 on one URL",
				r1.Revision, r1.ID, r2.Revision, r2.PreviousArticleID, r1.ExternalURL, r2.ExternalURL)
		}
		if !strings.Contains(r2.ContentMarkdown, "revised in November") || strings.Contains(r1.ContentMarkdown, "revised in November") {
			t.Errorf("revision contents do not match the page versions:\n1: %s\n2: %s", r1.ContentMarkdown, r2.ContentMarkdown)
		}
		// Polling the edited page again adds nothing.
		if out := e.pollNow(tracked); out.ItemsNew != 0 {
			t.Errorf("re-poll of the edited page %+v, want nothing new", out)
		}

		// Without track_changes an edit is the same article.
		e.site.set("/terms", "text/html", fullPage("Terms", edited, "2026-11-30T08:00:00Z"))
		if out := e.pollNow(untracked); out.ItemsNew != 0 {
			t.Errorf("untracked poll after an edit %+v, want nothing new", out)
		}
		if arts := e.articles(untracked); len(arts) != 1 || arts[0].Revision != 1 {
			t.Errorf("untracked page: %d articles, want 1", len(arts))
		}
	})
}

// The native fetcher refuses pages it cannot read, naming why: a
// client-rendered shell and a PDF.
func TestWebNativeUnreadablePagesFail(t *testing.T) {
	shell := `<!doctype html><html><head><title>Dashboard</title><script src="/static/app.3f9a.js" defer></script>
<script>window.__INITIAL_STATE__ = {"user": null, "items": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]};</script>
</head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app, which shows you a great many things worth reading.</noscript></body></html>`
	cases := []struct {
		name, contentType, body, reason string
	}{
		{"client-rendered shell", "text/html; charset=utf-8", shell, "page has no readable content"},
		{"PDF", "application/pdf", "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n", "content type application/pdf is not HTML"},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{})
				e.site.set("/doc", tc.contentType, tc.body)
				src := e.addWeb(e.site.url("/doc"), false)
				out := e.pollNow(src)
				got := e.source(src)
				if out.Status != model.StatusError || got.LastPolledStatus != model.StatusError ||
					!strings.Contains(got.LastPolledError, tc.reason) || got.ConsecutiveFailures != 1 {
					t.Fatalf("outcome %+v; source status %q error %q failures %d: want error naming %q, 1 failure",
						out, got.LastPolledStatus, got.LastPolledError, got.ConsecutiveFailures, tc.reason)
				}
				if n := e.count("feed_articles"); n != 0 {
					t.Errorf("%d articles stored from an unreadable page", n)
				}
			})
		}
	})
}

// A short page polled through Firecrawl is stored as it is: the cascade's
// rendering tier would only scrape the same page through Firecrawl again,
// spending a second credit on every poll for the same HTML.
func TestWebFirecrawlShortPageIsScrapedOncePerPoll(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{}})
		e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{
			HTML:     "<h2>Service status</h2><p>All systems are operational. The last incident was resolved on Monday; no maintenance is planned this week.</p>",
			Metadata: map[string]any{"title": "Status", "description": "Current service status"}}))
		src := e.addWeb("https://example.com/status", false)
		out := e.pollNow(src)
		if out.Status != model.StatusOK || out.ItemsNew != 1 {
			t.Fatalf("poll %+v, want the short page stored", out)
		}
		if n := len(e.fc.Requests()); n != 1 {
			t.Errorf("%d Firecrawl requests for one poll of one page, want 1", n)
		}
		a := e.articles(src)[0]
		if !strings.Contains(a.ContentMarkdown, "All systems are operational") || a.ExtractionMethod != pipeline.MethodPage {
			t.Errorf("stored %q via %q, want the polled page's text", a.ContentMarkdown, a.ExtractionMethod)
		}
	})
}

// Hostile page HTML costs one poll, never the process.
func TestWebHostilePageHTML(t *testing.T) {
	deep := strings.Repeat("<div>", 20000) + "<p>" + strings.Repeat("word ", 80) + "</p>" + strings.Repeat("</div>", 20000)
	cases := map[string]string{
		"deeply nested":  deep,
		"unclosed tags":  strings.Repeat("<table><tr><td><ul><li><a href='", 2000) + "x",
		"only a comment": "<!-- nothing -->",
	}
	for name, html := range cases {
		t.Run(name, func(t *testing.T) {
			e := newWebEnv(t, "sqlite", model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{}})
			e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: html, Metadata: map[string]any{"title": "Hostile"}}))
			src := e.addWeb("https://example.com/hostile", false)
			out := e.pollNow(src)
			if out.Status != model.StatusOK && out.Status != model.StatusError {
				t.Fatalf("outcome %+v", out)
			}
			if got := e.source(src); got.LastPolledStatus != out.Status {
				t.Errorf("source status %q, outcome %q: the poll was not recorded", got.LastPolledStatus, out.Status)
			}
		})
	}
}

// The poll branches on source_type: an api source is recorded as not
// supported, never as a failure that would pause it.
func TestWebAPISourceIsNotSupported(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{})
		src := &model.FeedSource{WorkspaceID: e.ws.ID, URL: e.site.url("/api/v1/items"), SourceType: model.SourceAPI,
			IsActive: true, PollingIntervalMinutes: 30}
		if err := e.store.CreateSource(context.Background(), src); err != nil {
			t.Fatal(err)
		}
		outs := e.pollDue()
		got := e.source(src)
		if len(outs) != 1 || outs[0].Status != model.StatusNotSupported || got.ConsecutiveFailures != 0 ||
			!strings.Contains(got.LastPolledError, "not polled") {
			t.Fatalf("outcomes %+v; source status %q error %q failures %d", outs, got.LastPolledStatus, got.LastPolledError, got.ConsecutiveFailures)
		}
		if n := e.site.count("/api/v1/items"); n != 0 {
			t.Errorf("an api source was fetched %d times", n)
		}
		if outs := e.pollDue(); len(outs) != 0 {
			t.Errorf("an api source was polled again at once: %+v", outs)
		}
	})
}
