package concurrent

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// recorder keeps the errors Same reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestSameReports: Same reports an item whose concurrent result differs,
// and calls the function for every item from every goroutine when all
// agree.
func TestSameReports(t *testing.T) {
	var calls atomic.Int64
	var ok recorder
	Same(&ok, 10, func(int) bool { calls.Add(1); return true })
	if got := calls.Load(); got != 10*Goroutines || len(ok.errs) != 0 {
		t.Errorf("%d calls and errors %q, want %d calls and none", got, ok.errs, 10*Goroutines)
	}
	var bad recorder
	Same(&bad, 10, func(i int) bool { return i != 3 })
	if len(bad.errs) != Goroutines {
		t.Errorf("errors %q, want one from each of %d goroutines for item 3", bad.errs, Goroutines)
	}
}
