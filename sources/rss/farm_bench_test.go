package rss

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// farmFeedBody renders feed 0 of a default feed farm (20 items, ~2 KB of
// HTML each) in the given format.
func farmFeedBody(b testing.TB, format feedfarm.Format) []byte {
	return farmFeedText(b, format, feedfarm.TextUniform)
}

// farmFeedText is farmFeedBody in the given text model.
func farmFeedText(b testing.TB, format feedfarm.Format, text feedfarm.Text) []byte {
	b.Helper()
	f := feedfarm.New(feedfarm.Options{Feeds: 1, Format: format, Seed: 1, Text: text})
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

// BenchmarkReadSettledFeed is the feed-parse stage on a changed farm feed
// whose entries an earlier poll settled but for the top one (a feed of 20
// that gained one item), beside the same stage reading it whole (as with
// nothing settled: the first poll of a source, or a feed of 20 new
// entries): settled/whole is what leaving the settled entries unread
// saves; whole against BenchmarkParseFarmFeed is what finding the entries
// costs.
func BenchmarkReadSettledFeed(b *testing.B) {
	const feedURL = "http://farm.test/feed/0.xml"
	for _, format := range []feedfarm.Format{feedfarm.FormatRSS, feedfarm.FormatAtom} {
		body := farmFeedBody(b, format)
		u := NewUnchanged()
		first, err := readFeed(body, "application/xml", "", feedURL, DefaultMaxItems, u, nil)
		if err != nil || !first.entries || len(first.items) != 20 {
			b.Fatalf("first read: %v", err)
		}
		prior := settled{url: feedURL, context: first.context}
		for _, it := range first.items[1:] {
			prior.digests = append(prior.digests, it.Digest)
		}
		slices.Sort(prior.digests)
		for _, c := range []struct {
			name  string
			prior *settled
			items int
		}{{"whole", nil, 20}, {"19-settled", &prior, 1}} {
			b.Run(format.String()+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					f, err := readFeed(body, "application/xml", "", feedURL, DefaultMaxItems, u, c.prior)
					if err != nil || len(f.items) != c.items {
						b.Fatalf("read %d items, want %d: %v", len(f.items), c.items, err)
					}
				}
			})
		}
	}
}
