package firecrawl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// TestBackstopTimeout: with no deadline on ctx, the HTTP client's own
// timeout (scrape timeout + slack) still ends a hung call.
func TestBackstopTimeout(t *testing.T) {
	s := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited})
	s.Enqueue(firecrawltest.SlowHeaders(time.Hour))
	p, _ := fetch.NewPolicy(fetch.Options{AllowPrivateNetworks: true})
	// Three attempts allowed: a client that gave up waiting is not retried.
	c, err := New(Options{APIKey: "k", APIURL: s.URL, Timeout: 100 * time.Millisecond, Attempts: 3, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	c.slack = 50 * time.Millisecond
	_, err = c.Scrape(context.Background(), "https://example.com/")
	if sources.KindOf(err) != sources.KindTransient || !strings.Contains(err.Error(), "did not answer within 150ms") {
		t.Fatalf("err = %v", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d scrape requests, want 1: the first job still runs on the server", n)
	}
}
