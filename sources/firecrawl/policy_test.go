package firecrawl_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

const allowHint = "; set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"

// canary stands in for an internal service (a cloud metadata endpoint):
// any request it sees is a leak.
func canary(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ami-id\ninstance-id\niam/security-credentials/admin-role\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// fetchingFake is a Firecrawl that fetches its targets for real, with the
// metadata address (and the names in routes) leading to loopback servers.
func fetchingFake(t *testing.T, routes map[string]string) *firecrawltest.Server {
	return firecrawltest.New(t, firecrawltest.Config{APIKey: key, Credits: firecrawltest.Unlimited,
		FetchTargets: true, Routes: routes})
}

// TestScrapeRefusesInternalTargets: a URL the address policy refuses is
// never handed to Firecrawl, which would fetch it.
func TestScrapeRefusesInternalTargets(t *testing.T) {
	internal, hits := canary(t)
	addr := internal.Listener.Addr().String()
	s := fetchingFake(t, map[string]string{
		"169.254.169.254:80":          addr,
		"metadata.example.com:80":     addr,
		"[::ffff:0:a9fe:a9fe]:80":     addr,
		"intranet.example.com:80":     addr,
		"rebound.example.com:80":      addr,
		"[64:ff9b::a9fe:a9fe]:80":     addr,
		"printer.lan.example.com:631": addr,
	})
	dns := names{"metadata.example.com": "169.254.169.254", "intranet.example.com": "10.1.2.3",
		"rebound.example.com": "::ffff:0:a9fe:a9fe", "printer.lan.example.com": "192.168.1.20"}
	c := client(t, s, func(o *firecrawl.Options) { o.Policy = policy(t, dns) })
	cases := []struct{ url, msg string }{
		{"http://169.254.169.254/latest/meta-data/", "host 169.254.169.254 is not allowed (link-local)"},
		{"http://metadata.example.com/latest/meta-data/", "host metadata.example.com is not allowed (link-local)"},
		{"http://intranet.example.com/wiki.html", "host intranet.example.com is not allowed (private)"},
		{"http://[::ffff:0:a9fe:a9fe]/latest/meta-data/", "host [::ffff:0:a9fe:a9fe] is not allowed (link-local via IPv4-translated IPv6)"},
		{"http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "host [64:ff9b::a9fe:a9fe] is not allowed (link-local via NAT64)"},
		{"http://rebound.example.com/latest/meta-data/", "host rebound.example.com is not allowed (link-local via IPv4-translated IPv6)"},
		{"http://printer.lan.example.com:631/jobs.html", "host printer.lan.example.com is not allowed (private)"},
	}
	for _, tc := range cases {
		page, err := c.Scrape(context.Background(), tc.url)
		if err == nil {
			t.Errorf("%s: scraped %q, want a refusal", tc.url, page.HTML)
			continue
		}
		if sources.KindOf(err) != sources.KindRefused || err.Error() != tc.msg+allowHint {
			t.Errorf("%s: %v (%v), want refused %q", tc.url, err, sources.KindOf(err), tc.msg+allowHint)
		}
		if strings.Contains(err.Error(), "10.1.2.3") || strings.Contains(err.Error(), "192.168.1.20") {
			t.Errorf("%s: the error shows the internal address: %v", tc.url, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d scrape requests reached Firecrawl, want none", n)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal service was reached %d times", n)
	}
}

// TestScrapeDiscardsPageThatLandedInside: a public page that redirects
// Firecrawl to an internal address is fetched by Firecrawl (nothing can
// stop that from here), but its answer is discarded, not used.
func TestScrapeDiscardsPageThatLandedInside(t *testing.T) {
	internal, hits := canary(t)
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	t.Cleanup(public.Close)
	s := fetchingFake(t, map[string]string{
		"169.254.169.254:80":  internal.Listener.Addr().String(),
		"news.example.com:80": public.Listener.Addr().String(),
	})
	c := client(t, s, nil)
	page, err := c.Scrape(context.Background(), "http://news.example.com/story")
	if err == nil {
		t.Fatalf("got the internal page %q, want it discarded", page.HTML)
	}
	want := "Firecrawl's answer discarded, its final URL failed the address policy: host 169.254.169.254 is not allowed (link-local)" + allowHint
	if sources.KindOf(err) != sources.KindPermanent || err.Error() != want {
		t.Fatalf("err %v (%v), want permanent %q", err, sources.KindOf(err), want)
	}
	if strings.Contains(err.Error(), "security-credentials") {
		t.Error("the error carries the internal page")
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d scrape requests, want 1 (a refusal is not retried)", n)
	}
	if hits.Load() != 1 {
		t.Errorf("internal hits %d: the test did not exercise the redirect", hits.Load())
	}
}

// TestScrapeAllowedHostReachesPrivateAddress: a host on the allow list
// (FEEDPOLLER_FETCH_ALLOW) is scraped through Firecrawl as the native
// fetcher would fetch it.
func TestScrapeAllowedHostReachesPrivateAddress(t *testing.T) {
	wiki := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<h1>Runbook</h1><p>Restart the thing.</p>")
	}))
	t.Cleanup(wiki.Close)
	s := fetchingFake(t, map[string]string{"wiki.corp.example.com:80": wiki.Listener.Addr().String()})
	dns := names{"wiki.corp.example.com": "10.20.0.5", "other.corp.example.com": "10.20.0.6"}
	c := client(t, s, func(o *firecrawl.Options) { o.Policy = policy(t, dns, "wiki.corp.example.com") })
	page, err := c.Scrape(context.Background(), "http://wiki.corp.example.com/runbook.html")
	if err != nil || !strings.Contains(page.HTML, "Restart the thing") {
		t.Fatalf("page %+v err %v", page, err)
	}
	if _, err := c.Scrape(context.Background(), "http://other.corp.example.com/a.html"); sources.KindOf(err) != sources.KindRefused {
		t.Fatalf("a host not on the allow list: %v, want refused", err)
	}
}
