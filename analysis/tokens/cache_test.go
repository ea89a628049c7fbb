package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// withCache returns a copy of the process-wide counter of enc whose
// piece cache has the given number of sets, so that a test can make
// pieces share and evict entries.
func withCache(t testing.TB, enc Encoding, sets int) *Counter {
	t.Helper()
	c := *mustCounter(t, enc)
	c.cache = newPieceCache(sets)
	return &c
}

// cacheCases are pieces a cache could confuse: the same first word and
// length with different later bytes, lengths on either side of the
// longest cached piece, trailing zero bytes (the key is zero-padded).
var cacheCases = []string{
	" counterattacks counterxqzjwkv counterattacks counterxqzjwkv",
	" internationalisationxx internationalisationxy internationalisationqqz",
	" abcdefghijklmnopqrstuvw abcdefghijklmnopqrstuvwx abcdefghijklmnopqrstuvwxy",
	" qwertyuiopasdfghjklzxcv qwertyuiopasdfghjklzxcvb qwertyuiopasdfghjklzxcvbn",
	"!!\x00 !!\x00\x00 !!\x00\x00\x00 !!\x00 !!",
	"<div class=\"a\"><div class=\"ab\"><div class=\"abc\"><div class=\"a\">",
}

// TestCountCachedMatchesTiktoken counts every case twice with a cache of
// one set, where every piece evicts another and a hit must have compared
// the piece in full, and with the counter's own cache: the second count
// comes from the cache and must still be tiktoken's.
func TestCountCachedMatchesTiktoken(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "sources", "extract", "testdata", "pages", "*.html"))
	texts := append(append([]string{}, cacheCases...), tokenCases...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		for _, c := range []*Counter{withCache(t, enc, 1), withCache(t, enc, cacheSets)} {
			for pass := range 2 {
				for _, s := range texts {
					if got, want := c.Count(s), referenceCount(enc, s); got != want {
						t.Errorf("%s, %d sets, pass %d: Count(%.60q) = %d, tiktoken-go says %d",
							enc, len(c.cache.entries)/2, pass, s, got, want)
					}
				}
			}
		}
	}
}

// TestCountConcurrentSharedCache counts different texts from several
// goroutines through one cache of one set, so that readers race writers
// on the same two entries: every count must still be exact (and the race
// detector must see no unsynchronised access).
func TestCountConcurrentSharedCache(t *testing.T) {
	texts := append(append([]string{}, cacheCases...), tokenCases...)
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		want := make([]int, len(texts))
		for i, s := range texts {
			want[i] = referenceCount(enc, s)
		}
		c := withCache(t, enc, 1)
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for g := range 8 {
			wg.Go(func() {
				for round := range 50 {
					i := (g*7 + round) % len(texts)
					if got := c.Count(texts[i]); got != want[i] {
						select {
						case errs <- strings.Join([]string{string(enc), texts[i]}, ": "):
						default:
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Errorf("wrong count under concurrency: %.80q", e)
		}
	}
}
