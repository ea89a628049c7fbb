package feedfarm_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// BenchmarkServeFeed measures the farm's own cost per feed request, so a
// reader benchmark can tell how much of the machine the farm takes.
// The news text is measured beside the uniform one: both must stay far
// cheaper than the readers they load.
func BenchmarkServeFeed(b *testing.B) {
	uniform := feedfarm.New(feedfarm.Options{Feeds: 2}).Handler()
	news := feedfarm.New(feedfarm.Options{Feeds: 2, Text: feedfarm.TextNews}).Handler()
	for _, bc := range []struct {
		name, path string
		etag       bool
		h          http.Handler
	}{
		{"rss", "/feed/0.xml", false, uniform},
		{"atom", "/feed/1.xml", false, uniform},
		{"not-modified", "/feed/0.xml", true, uniform},
		{"news-rss", "/feed/0.xml", false, news},
		{"news-atom", "/feed/1.xml", false, news},
	} {
		h := bc.h
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bc.path, nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if bc.etag {
				req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
			} else {
				b.SetBytes(int64(rec.Body.Len()))
			}
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK && rec.Code != http.StatusNotModified {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
