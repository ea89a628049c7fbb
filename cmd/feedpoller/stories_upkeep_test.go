package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/logbuf"
)

// fakePruner records each prune's cut and fails the first one.
type fakePruner struct {
	mu    sync.Mutex
	cuts  []time.Time
	calls chan struct{}
}

func (f *fakePruner) PruneStoryTerms(_ context.Context, before, _ time.Time) (int64, error) {
	f.mu.Lock()
	f.cuts = append(f.cuts, before)
	n := len(f.cuts)
	f.mu.Unlock()
	f.calls <- struct{}{}
	if n == 1 {
		return 0, errors.New("database is locked")
	}
	return 3, nil
}

// serve's pruning runs at once and then at every interval, cutting at
// the story window before now; a failed round is logged and the next
// one runs; it stops with its context.
func TestPruneStoryTermsLoop(t *testing.T) {
	p := &fakePruner{calls: make(chan struct{})}
	logs := &logbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	window := 7 * 24 * time.Hour
	go func() {
		pruneStoryTerms(ctx, p, window, time.Millisecond, slog.New(slog.NewTextHandler(logs, nil)))
		close(done)
	}()
	for range 3 {
		<-p.calls
	}
	cancel()
	go func() {
		for range p.calls {
		}
	}()
	<-done
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cut := range p.cuts {
		if cut.After(time.Now().Add(-window)) || cut.Before(time.Now().Add(-window-time.Hour)) {
			t.Errorf("pruned before %v, want the window (%v) before now", cut, window)
		}
	}
	if out := logs.String(); !containsAll(out, "prune story terms", "database is locked", "story terms pruned", "rows=3") {
		t.Errorf("log: %s", out)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
