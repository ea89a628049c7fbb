package api_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/servicetest"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/web"
)

// intranetDNS is the operator's DNS: intranet names resolve to private
// addresses.
type intranetDNS map[string]string

func (d intranetDNS) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ip, ok := d[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

// TestSourceRefusalNamesHostNotAddress: a workspace-token caller adding a
// source whose host resolves to an internal address learns that the host
// is refused and which setting allows it, never the internal address; the
// operator's log keeps it. Validation runs with the daemon's wiring and
// private networks closed, Firecrawl configured (it is never asked).
func TestSourceRefusalNamesHostNotAddress(t *testing.T) {
	logs := &syncBuffer{}
	client := fetch.New(fetch.Options{Resolver: intranetDNS{"wiki.corp.example.com": "10.1.2.3"},
		Attempts: 1, PerDomainGap: -1, RetryBaseDelay: -1, Timeout: 5 * time.Second,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	fake := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited, FetchTargets: true})
	fc, err := firecrawl.New(firecrawl.Options{APIKey: "k", APIURL: fake.URL, Policy: client.Policy()})
	if err != nil {
		t.Fatal(err)
	}
	v := servicetest.Validator{Feeds: &rss.Fetcher{Client: client}, Pages: &web.Fetcher{Client: client, Firecrawl: fc}}
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "intranet")
		tok := e.workspaceToken(t, ws.ID)
		for _, body := range []map[string]any{
			{"url": "http://wiki.corp.example.com/feed.xml"},
			{"url": "http://wiki.corp.example.com/start.html", "source_type": "web"},
		} {
			eb := e.do("POST", path("/%d/sources", ws.ID), tok, body).want(t, http.StatusBadRequest).errBody(t)
			want := "host wiki.corp.example.com is not allowed (private); set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"
			if !strings.Contains(eb.Error, want) || !strings.Contains(eb.Fields["url"], want) {
				t.Errorf("%v: error %q fields %v, want them to say %q", body, eb.Error, eb.Fields, want)
			}
			if strings.Contains(eb.Error+eb.Fields["url"], "10.1.2.3") {
				t.Errorf("%v: the answer shows the internal address: %q", body, eb.Error)
			}
		}
		if n := e.countRows(t, "feed_sources"); n != 0 {
			t.Errorf("%d sources stored", n)
		}
	}, func(o *apiOptions) { o.Validator = v })
	if !strings.Contains(logs.String(), "addr=10.1.2.3") {
		t.Errorf("the operator's log lacks the refused address:\n%s", logs)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d scrape requests reached Firecrawl during validation", n)
	}
}
