package web

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

const allowHint = "; set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"

// dnsTable resolves the listed names as given and every other name to a
// public address.
type dnsTable map[string]string

func (d dnsTable) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ip, ok := d[host]
	if !ok {
		ip = "93.184.215.14"
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

// internalService stands in for a cloud metadata endpoint: any request it
// sees is a leak.
func internalService(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body><p>iam/security-credentials/admin-role AKIA-SECRET</p>"+words+"</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// strictFetcher is a web fetcher wired as the daemon wires it with private
// networks closed: native fetcher, robots.txt obeyed, and Firecrawl (a
// fake that fetches for real, the metadata address routed to svc) held to
// the native fetcher's policy.
func strictFetcher(t *testing.T, svc *httptest.Server) (*Fetcher, *firecrawltest.Server) {
	t.Helper()
	native := fetch.New(fetch.Options{Resolver: dnsTable{"metadata.example.com": "169.254.169.254"},
		PerDomainGap: -1, RetryBaseDelay: -1, Attempts: 1, Timeout: 5 * time.Second,
		ConnectTimeout: 300 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(native.CloseIdleConnections)
	s := firecrawltest.New(t, firecrawltest.Config{APIKey: fcKey, Credits: firecrawltest.Unlimited, FetchTargets: true,
		Routes: map[string]string{
			"169.254.169.254:80":      svc.Listener.Addr().String(),
			"metadata.example.com:80": svc.Listener.Addr().String(),
		}})
	return &Fetcher{Client: native, Firecrawl: policyClient(t, s, native.Policy()), RespectRobots: true,
		Log: slog.New(slog.DiscardHandler)}, s
}

var internalURLs = []struct{ url, msg string }{
	{"http://169.254.169.254/latest/meta-data/", "host 169.254.169.254 is not allowed (link-local)" + allowHint},
	{"http://metadata.example.com/latest/meta-data/", "host metadata.example.com is not allowed (link-local)" + allowHint},
}

// TestFirecrawlPollRefusesInternalPage: a web source whose URL points
// inward is refused at poll time before Firecrawl is asked, as the native
// fetcher refuses it.
func TestFirecrawlPollRefusesInternalPage(t *testing.T) {
	svc, hits := internalService(t)
	p, fc := strictFetcher(t, svc)
	for _, tc := range internalURLs {
		res, err := p.Fetch(context.Background(), sources.Request{URL: tc.url})
		if err == nil {
			t.Fatalf("%s: polled %+v, want a refusal", tc.url, res.Items)
		}
		if fe := fetchErr(t, err); fe.Kind != sources.KindRefused || err.Error() != tc.msg {
			t.Errorf("%s: kind %v error %q, want refused %q", tc.url, fe.Kind, err, tc.msg)
		}
	}
	if n := len(fc.Requests()); n != 0 {
		t.Errorf("%d scrape requests reached Firecrawl, want none", n)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal service was reached %d times", n)
	}
}

// TestValidateRefusesInternalPageWithFirecrawl: creating a web source that
// points inward fails validation with the host named, and neither the
// native fetcher nor Firecrawl reaches it.
func TestValidateRefusesInternalPageWithFirecrawl(t *testing.T) {
	svc, hits := internalService(t)
	p, fc := strictFetcher(t, svc)
	for _, tc := range internalURLs {
		v, err := p.Validate(context.Background(), tc.url)
		if err == nil {
			t.Fatalf("%s: validated %+v, want a refusal", tc.url, v)
		}
		if err.Error() != tc.msg || strings.Contains(err.Error(), "169.254.169.254") && !strings.Contains(tc.url, "169.254.169.254") {
			t.Errorf("%s: error %q, want %q", tc.url, err, tc.msg)
		}
	}
	if n := len(fc.Requests()); n != 0 {
		t.Errorf("%d scrape requests reached Firecrawl, want none", n)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal service was reached %d times", n)
	}
}
