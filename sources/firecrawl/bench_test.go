package firecrawl_test

import (
	"context"
	"testing"

	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// BenchmarkScrape measures one scrape round trip against the loopback fake:
// the per-call SDK app, capture transport and exact-key decoding.
func BenchmarkScrape(b *testing.B) {
	s := firecrawltest.NewServer(firecrawltest.Config{APIKey: key, Credits: firecrawltest.Unlimited})
	defer s.Close()
	s.Handle("example.com", firecrawltest.Success(article))
	c := client(b, s, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Scrape(ctx, target); err != nil {
			b.Fatal(err)
		}
	}
}
