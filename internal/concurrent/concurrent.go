// Package concurrent checks, in tests, that a function computing from
// pooled scratch gives from several goroutines at once what it gives
// alone: the daemon's workers call such functions concurrently.
package concurrent

import "sync"

// Reporter is what Same needs of a test: testing.TB has it.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// Goroutines is how many goroutines Same runs.
const Goroutines = 8

// Same runs same(i) for every i in [0, n) from each of Goroutines
// goroutines at once, each in its own order, and fails t naming every i
// for which same reported a difference (what it computed against what it
// computed alone, before). A goroutine stops at its first difference.
func Same(t Reporter, n int, same func(i int) bool) {
	t.Helper()
	if n == 0 {
		return
	}
	var wg sync.WaitGroup
	bad := make(chan int, Goroutines)
	for g := range Goroutines {
		wg.Go(func() {
			for k := range n {
				if i := (k*7 + g*13) % n; !same(i) {
					bad <- i
					return
				}
			}
		})
	}
	wg.Wait()
	close(bad)
	for i := range bad {
		t.Errorf("item %d: computed from %d goroutines at once, it differs from what it is alone", i, Goroutines)
	}
}
