package feedfarm_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// BenchmarkServeFeed measures the farm's own cost per feed request, so a
// reader benchmark can tell how much of the machine the farm takes.
func BenchmarkServeFeed(b *testing.B) {
	f := feedfarm.New(feedfarm.Options{Feeds: 2})
	h := f.Handler()
	for _, bc := range []struct {
		name, path string
		etag       bool
	}{
		{"rss", "/feed/0.xml", false},
		{"atom", "/feed/1.xml", false},
		{"not-modified", "/feed/0.xml", true},
	} {
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
