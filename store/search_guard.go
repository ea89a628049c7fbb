package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// DefaultSearchTimeout is the deadline of one full-text search statement
// when Options.SearchTimeout is 0: far above what a search costs (tens of
// milliseconds at 100 000 articles), so that it only ever stops a search
// that would otherwise hold a connection and a core for long.
const DefaultSearchTimeout = 5 * time.Second

// searchGuard bounds what full-text searches may hold: a deadline per
// search, and slots for at most half the connection pool, so that
// searches never take every connection the daemon's other requests and
// its polls need.
type searchGuard struct {
	timeout time.Duration
	slots   chan struct{}
}

func newSearchGuard(timeout time.Duration, poolSize int) searchGuard {
	if timeout <= 0 {
		timeout = DefaultSearchTimeout
	}
	return searchGuard{timeout: timeout, slots: make(chan struct{}, max(1, poolSize/2))}
}

// searching runs one search statement in a slot, under the deadline. The
// statement stops when ctx or the deadline ends it: PostgreSQL cancels
// it on the server, SQLite interrupts it (the driver calls
// sqlite3_interrupt when the context ends).
func (s *Store) searching(parent context.Context, run func(ctx context.Context) error) error {
	g := s.search
	ctx, cancel := context.WithTimeout(parent, g.timeout)
	defer cancel()
	// Our own deadline, not the caller's ending.
	timedOut := func() bool { return parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) }
	select {
	case g.slots <- struct{}{}:
		defer func() { <-g.slots }()
	case <-ctx.Done():
		if timedOut() {
			return fmt.Errorf("%w (%d at most, none free for %s)", model.ErrSearchBusy, cap(g.slots), g.timeout)
		}
		return ctx.Err()
	}
	err := run(ctx)
	switch {
	case err == nil || ctx.Err() == nil:
		return err
	case timedOut():
		return fmt.Errorf("%w (%s)", model.ErrSearchTimeout, g.timeout)
	}
	return fmt.Errorf("%w: %w", ctx.Err(), err)
}

// listing runs a listing's statement, under the search guard when its
// filter searches text (q=).
func (s *Store) listing(ctx context.Context, f model.ListFilter, run func(ctx context.Context) error) error {
	if strings.TrimSpace(f.Query) == "" {
		return run(ctx)
	}
	return s.searching(ctx, run)
}
