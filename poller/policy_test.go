package poller_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/poller/pipeline"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/web"
)

// metadataURL is the cloud metadata endpoint a hostile feed links to.
const metadataURL = "http://169.254.169.254/latest/meta-data/"

// secret is what the stand-in metadata service gives away.
const secret = "AKIA-INSTANCE-ROLE-SECRET"

// dnsTable resolves the listed names as given; others do not exist.
type dnsTable map[string]string

func (d dnsTable) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ip, ok := d[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

// policyEnv is the daemon with private networks closed: the feed host and
// the stand-in public site are allowed by name only (as an operator lists
// hosts in FEEDPOLLER_FETCH_ALLOW), and Firecrawl is a fake that fetches
// for real, with the metadata address leading to a canary.
type policyEnv struct {
	*env
	fc     *firecrawltest.Server
	canary *atomic.Int32
	public *httptest.Server
}

func newPolicyEnv(t *testing.T, dialect string) *policyEnv {
	t.Helper()
	e := &policyEnv{env: newEnv(t, dialect, model.RelevanceProfile{}), canary: &atomic.Int32{}}
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.canary.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><article><h1>Instance credentials</h1>%s<p>%s</p></article></body></html>", body("instance roles"), secret)
	}))
	t.Cleanup(internal.Close)
	// A public site whose story redirects to the metadata address.
	e.public = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, metadataURL, http.StatusFound)
	}))
	t.Cleanup(e.public.Close)
	_, feedPort, _ := net.SplitHostPort(e.feeds.Listener.Addr().String())
	e.feeds.URL = "http://feeds.example.com:" + feedPort

	native := fetch.New(fetch.Options{Allow: []string{"feeds.example.com", "news.example.com"},
		Resolver: dnsTable{"feeds.example.com": "127.0.0.1", "news.example.com": "127.0.0.1"},
		Attempts: 1, PerDomainGap: -1, ConnectTimeout: 300 * time.Millisecond, Timeout: 5 * time.Second,
		Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(native.CloseIdleConnections)
	e.fc = firecrawltest.New(t, firecrawltest.Config{APIKey: fcKey, Credits: firecrawltest.Unlimited, FetchTargets: true,
		Routes: map[string]string{
			"169.254.169.254:80":                   internal.Listener.Addr().String(),
			"news.example.com:" + portOf(e.public): e.public.Listener.Addr().String(),
		}})
	fc, err := firecrawl.New(firecrawl.Options{APIKey: fcKey, APIURL: e.fc.URL, RetryBaseDelay: -1, Policy: native.Policy(),
		Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(e.store, "policy-test")
	opts.Workers = 1
	opts.Fetchers = map[string]poller.Fetcher{
		model.SourceRSS: &rss.Fetcher{Client: native},
		model.SourceWeb: &web.Fetcher{Client: native, Firecrawl: fc, RespectRobots: true, Log: slog.New(slog.DiscardHandler)},
	}
	opts.Pages = pipeline.HTTPPages{Client: native}
	opts.Render = pipeline.FirecrawlPages{Client: fc}
	opts.Log = slog.New(slog.DiscardHandler)
	e.poller, err = poller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func portOf(s *httptest.Server) string {
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	return port
}

// leaked reports whether anything stored holds the metadata service's
// answer.
func (e *policyEnv) leaked(t *testing.T) bool {
	t.Helper()
	var n int
	err := e.store.DB().Get(&n, e.store.DB().Rebind(
		"SELECT (SELECT COUNT(*) FROM feed_articles WHERE content_markdown LIKE ?) + (SELECT COUNT(*) FROM content_items WHERE content_markdown LIKE ?)"),
		"%"+secret+"%", "%"+secret+"%")
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func (e *policyEnv) methods(t *testing.T) []string {
	t.Helper()
	var m []string
	if err := e.store.DB().Select(&m, "SELECT extraction_method FROM feed_articles ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRenderTierHoldsToAddressPolicy: a feed item whose link points at
// the metadata address falls through the article-page tier (refused) to
// the rendering tier, which must refuse it too rather than hand it to
// Firecrawl; a link to a public page that redirects Firecrawl inward is
// rendered by Firecrawl, and its answer discarded.
func TestRenderTierHoldsToAddressPolicy(t *testing.T) {
	cases := []struct {
		name    string
		link    func(e *policyEnv) string
		scrapes int   // requests that reach Firecrawl
		canary  int32 // requests Firecrawl makes to the metadata service
	}{
		{name: "link to the metadata address", link: func(*policyEnv) string { return metadataURL }},
		// Nothing here can stop Firecrawl following the redirect; its
		// answer must not be used.
		{name: "public link that redirects inward", scrapes: 1, canary: 1,
			link: func(e *policyEnv) string { return "http://news.example.com:" + portOf(e.public) + "/story" }},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := newPolicyEnv(t, dialect)
				e.feeds.set("/feed.xml", rssDoc("Hostile", entry{guid: "m1", link: tc.link(e), title: "Look here", html: "<p>Short teaser.</p>"}))
				src := e.addSource("/feed.xml")
				if out := e.pollNow(src); out.Status != model.StatusOK {
					t.Fatalf("poll %+v", out)
				}
				if e.leaked(t) {
					t.Fatal("the metadata service's answer was stored as an article")
				}
				if m := e.methods(t); len(m) != 1 || m[0] == pipeline.MethodRenderedPage {
					t.Errorf("extraction methods %v: the item must keep its own text", m)
				}
				if n := len(e.fc.Requests()); n != tc.scrapes {
					t.Errorf("%d scrape requests reached Firecrawl, want %d", n, tc.scrapes)
				}
				if n := e.canary.Load(); n != tc.canary {
					t.Errorf("the metadata service was reached %d times, want %d", n, tc.canary)
				}
			})
		}
	})
}

// TestWebSourceHoldsToAddressPolicy: a web source that points inward (a
// name that resolved publicly when it was added, say) is refused at poll
// time with the host named; neither Firecrawl nor the service is reached.
// The refusal is the configuration's, recorded as such with the setting
// that allows it, and not the source's failure: no failure counted, no
// backoff (it was "backoff: 1 failure → 24h").
func TestWebSourceHoldsToAddressPolicy(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newPolicyEnv(t, dialect)
		src := &model.FeedSource{WorkspaceID: e.ws.ID, URL: metadataURL, SourceType: model.SourceWeb, IsActive: true,
			PollingIntervalMinutes: 360}
		if err := e.store.CreateSource(context.Background(), src); err != nil {
			t.Fatal(err)
		}
		out := e.pollNow(src)
		want := "host 169.254.169.254 is not allowed (link-local); set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"
		if out.Status != model.StatusRefused || !strings.HasSuffix(out.Error, want) || !strings.Contains(out.Error, "address policy") ||
			out.HTTPStatus != 0 {
			t.Fatalf("outcome %+v, want a refused poll saying %q", out, want)
		}
		got, err := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ConsecutiveFailures != 0 || strings.HasPrefix(got.NextPollReason, "backoff") || got.LastPolledStatus != model.StatusRefused {
			t.Errorf("source after a refusal: %d failures, next poll %q, status %q; want no failure and no backoff",
				got.ConsecutiveFailures, got.NextPollReason, got.LastPolledStatus)
		}
		if e.leaked(t) || e.count("feed_articles") != 0 {
			t.Fatal("the metadata service's answer was stored")
		}
		if n := len(e.fc.Requests()); n != 0 {
			t.Errorf("%d scrape requests reached Firecrawl, want none", n)
		}
		if n := e.canary.Load(); n != 0 {
			t.Errorf("the metadata service was reached %d times", n)
		}
	})
}
