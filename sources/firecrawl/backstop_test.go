package firecrawl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// TestBackstopTimeout: with no deadline on ctx, the HTTP client's own
// timeout (scrape timeout + slack) still ends a hung call.
func TestBackstopTimeout(t *testing.T) {
	s := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited})
	s.Enqueue(firecrawltest.SlowHeaders(time.Hour))
	c, err := New(Options{APIKey: "k", APIURL: s.URL, Timeout: 100 * time.Millisecond, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	c.slack = 50 * time.Millisecond
	_, err = c.Scrape(context.Background(), "https://example.com/")
	if sources.KindOf(err) != sources.KindTransient || !strings.Contains(err.Error(), "did not answer within 150ms") {
		t.Fatalf("err = %v", err)
	}
}
