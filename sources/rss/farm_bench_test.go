package rss

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// farmFeedBody renders feed 0 of a default feed farm (20 items, ~2 KB of
// HTML each) in the given format.
func farmFeedBody(b testing.TB, format feedfarm.Format) []byte {
	b.Helper()
	f := feedfarm.New(feedfarm.Options{Feeds: 1, Format: format, Seed: 1})
	rec := httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://farm.test/feed/0.xml", nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("farm answered %d", rec.Code)
	}
	return rec.Body.Bytes()
}

// BenchmarkParseFarmFeed is the feed-parse stage of the pipeline on the
// benchmark farm's feeds; BenchmarkGofeedFarmFeed is gofeed alone on the
// same bytes, so the stage's overhead over the parser is their ratio.
func BenchmarkParseFarmFeed(b *testing.B) {
	for _, format := range []feedfarm.Format{feedfarm.FormatRSS, feedfarm.FormatAtom} {
		b.Run(format.String(), func(b *testing.B) {
			body := farmFeedBody(b, format)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := parseFeed(body, "application/xml", "", "http://farm.test/feed/0.xml", DefaultMaxItems)
				if err != nil || len(f.items) != 20 {
					b.Fatalf("parsed %v, %v", f, err)
				}
			}
		})
	}
}

func BenchmarkGofeedFarmFeed(b *testing.B) {
	for _, format := range []feedfarm.Format{feedfarm.FormatRSS, feedfarm.FormatAtom} {
		b.Run(format.String(), func(b *testing.B) {
			body := farmFeedBody(b, format)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := gofeed.NewParser().Parse(bytes.NewReader(body))
				if err != nil || len(f.Items) != 20 {
					b.Fatalf("parsed %v, %v", f, err)
				}
			}
		})
	}
}
