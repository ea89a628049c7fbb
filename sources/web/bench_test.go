package web

import (
	"strings"
	"testing"
)

// BenchmarkVisibleWords measures the readable-content check on a large
// page whose text is mostly at the end (the worst case for early exit).
func BenchmarkVisibleWords(b *testing.B) {
	page := []byte("<html><head><script>" + strings.Repeat("var x = 1;", 20000) + "</script></head><body>" +
		strings.Repeat("<div><span></span></div>", 20000) + words + "</body></html>")
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if visibleWords(page, minReadableWords) < minReadableWords {
			b.Fatal("page judged unreadable")
		}
	}
}
