package rss

import "testing"

// BenchmarkParseTypicalFeed: a 50-entry RSS feed, the common case.
func BenchmarkParseTypicalFeed(b *testing.B) {
	body := []byte(bigRSS(50))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseFeed(body, "application/rss+xml", "", "https://big.example/feed", DefaultMaxItems); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseHugeFeedCapped: 100 000 entries cut to the default cap.
func BenchmarkParseHugeFeedCapped(b *testing.B) {
	body := []byte(bigRSS(100_000))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseFeed(body, "application/rss+xml", "", "https://big.example/feed", DefaultMaxItems); err != nil {
			b.Fatal(err)
		}
	}
}
