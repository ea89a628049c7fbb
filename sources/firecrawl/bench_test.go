package firecrawl_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/sources/firecrawl"
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

// BenchmarkScrapeLargePage is one scrape of a 5 MB page, served as a
// canned answer so that B/op is what the client allocates: the cost of a
// large target on the Firecrawl path before extraction.
func BenchmarkScrapeLargePage(b *testing.B) {
	html := "<article>" + strings.Repeat("<p>Words of a very long page, repeated until it weighs five megabytes.</p>\n", 5<<20/74) + "</article>"
	answer, err := json.Marshal(map[string]any{"success": true, "data": map[string]any{
		"html": html, "metadata": map[string]any{"title": "Big", "statusCode": 200, "url": target, "sourceURL": target}}})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	c, err := firecrawl.New(firecrawl.Options{APIKey: key, APIURL: srv.URL, Policy: policy(b, nil)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(html)))
	for b.Loop() {
		p, err := c.Scrape(ctx, target)
		if err != nil || len(p.HTML) != len(html) {
			b.Fatal(err)
		}
	}
}
