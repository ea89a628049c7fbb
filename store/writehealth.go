package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/dberr"
)

// writeHealth remembers which kinds of write are failing now. A database
// on a full disk still answers pings and reads, so readiness has to come
// from the writes themselves. Only the writes the daemon retries by itself
// are tracked (claiming sources every tick, saving polls, which are redone
// when their lease runs out), so a failure is always followed by another
// attempt that can clear it.
type writeHealth struct {
	mu      sync.Mutex
	failing map[string]*writeFailure // by operation
}

type writeFailure struct {
	since time.Time
	count int
	last  error
}

// noteWrite records the result of a write. Only the database's own state
// counts: a refused value (a data error) or a cancelled request says
// nothing about whether the database can take writes.
func (s *Store) noteWrite(ctx context.Context, op string, err error) {
	h := &s.writes
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		delete(h.failing, op)
	case ctx.Err() != nil || dberr.IsData(err) || errors.Is(err, model.ErrLeaseLost):
	default:
		if h.failing == nil {
			h.failing = map[string]*writeFailure{}
		}
		f := h.failing[op]
		if f == nil {
			f = &writeFailure{since: now()}
			h.failing[op] = f
		}
		f.count++
		f.last = err
	}
}

// WriteFailure describes the writes that fail now (each kind's last
// attempt failed), or returns nil when every kind of write last succeeded.
// Readiness reports it: a daemon whose database refuses writes polls
// nothing useful.
func (s *Store) WriteFailure() error {
	h := &s.writes
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.failing) == 0 {
		return nil
	}
	ops := make([]string, 0, len(h.failing))
	for op := range h.failing {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	parts := make([]string, len(ops))
	for i, op := range ops {
		f := h.failing[op]
		parts[i] = fmt.Sprintf("%s failing since %s (%d failed, last: %v)", op, f.since.Format(time.RFC3339), f.count, f.last)
	}
	return fmt.Errorf("database writes fail: %s", strings.Join(parts, "; "))
}
