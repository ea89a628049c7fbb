package firecrawltest_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// targetSite is a loopback site for the fetching fake, counting requests.
func targetSite(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestFetchTargetsForReal: with FetchTargets the fake scrapes a target
// that has no scenario over the network, following redirects, and answers
// as the real server does for what it found.
func TestFetchTargetsForReal(t *testing.T) {
	site, hits := targetSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page.html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<p>the page</p>")
		case "/moved":
			http.Redirect(w, r, "/page.html", http.StatusMovedPermanently)
		case "/broken":
			http.Error(w, "<h1>Internal Server Error</h1>", http.StatusInternalServerError)
		case "/empty":
		case "/slow":
			time.Sleep(200 * time.Millisecond)
			io.WriteString(w, "<p>late</p>")
		default:
			http.NotFound(w, r)
		}
	})
	_, sitePort, _ := net.SplitHostPort(site.Listener.Addr().String())
	closed := httptest.NewServer(http.NotFoundHandler())
	closedAddr := closed.Listener.Addr().String()
	closed.Close()
	s := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited, FetchTargets: true,
		TimeScale: 0.001, // the 30 s scrape timeout lasts 30 ms
		Routes: map[string]string{
			"site.example.com:80": site.Listener.Addr().String(),
			"down.example.com:80": closedAddr,
		}})
	cases := []struct {
		url         string
		status      int
		code        string
		statusCode  float64 // metadata.statusCode of a 200
		html, final string
	}{
		{url: "http://site.example.com/page.html", status: 200, statusCode: 200, html: "<p>the page</p>", final: "http://site.example.com/page.html"},
		{url: "http://site.example.com/moved", status: 200, statusCode: 200, html: "<p>the page</p>", final: "http://site.example.com/page.html"},
		{url: "http://site.example.com/broken", status: 200, statusCode: 500, html: "<h1>Internal Server Error</h1>\n", final: "http://site.example.com/broken"},
		{url: "http://site.example.com/missing.html", status: 200, statusCode: 404, html: "404 page not found\n", final: "http://site.example.com/missing.html"},
		{url: "http://site.example.com/empty", status: 500, code: "SCRAPE_ALL_ENGINES_FAILED"},
		{url: "http://down.example.com/a.html", status: 500, code: "SCRAPE_ALL_ENGINES_FAILED"},
		// Not routed: the fake never leaves loopback, nor asks DNS.
		{url: "http://elsewhere.example.com/a.html", status: 500, code: "SCRAPE_ALL_ENGINES_FAILED"},
		{url: "http://93.184.215.14/a.html", status: 500, code: "SCRAPE_ALL_ENGINES_FAILED"},
		{url: "http://127.0.0.1:" + sitePort + "/page.html", status: 200, statusCode: 200, html: "<p>the page</p>",
			final: "http://127.0.0.1:" + sitePort + "/page.html"},
		{url: "http://site.example.com/slow", status: 408, code: "SCRAPE_TIMEOUT"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			m := scrapeAs(t, s, tc.url, tc.status, tc.code)
			if tc.status != 200 {
				return
			}
			data := m["data"].(map[string]any)
			md := data["metadata"].(map[string]any)
			if data["html"] != tc.html || md["statusCode"] != tc.statusCode || md["url"] != tc.final || md["sourceURL"] != tc.url {
				t.Errorf("html %q statusCode %v url %v sourceURL %v", data["html"], md["statusCode"], md["url"], md["sourceURL"])
			}
		})
	}
	if hits.Load() == 0 {
		t.Error("the fake never reached the target")
	}
}

// TestRegisteredScenarioWinsOverFetching: a scenario still decides its
// target when the fake fetches the others.
func TestRegisteredScenarioWinsOverFetching(t *testing.T) {
	site, hits := targetSite(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "real") })
	s := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited, FetchTargets: true,
		Routes: map[string]string{"example.com:80": site.Listener.Addr().String()}})
	s.Handle("example.com", firecrawltest.DNSFailure())
	scrapeAs(t, s, "http://example.com/x", 500, "SCRAPE_DNS_RESOLUTION_ERROR")
	scrapeAs(t, s, "http://example.com:80/other.html", 500, "SCRAPE_DNS_RESOLUTION_ERROR")
	if hits.Load() != 0 {
		t.Fatalf("the target was fetched %d times", hits.Load())
	}
}
