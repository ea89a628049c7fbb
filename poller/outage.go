package poller

import (
	"log/slog"
	"sync"
	"time"
)

// Kinds of database work the outage log tells apart. A write kind that
// failed stays failing until that kind succeeds again: on a full disk,
// claiming (an update in place) may still work while saving a poll
// (inserts) does not, and that is no recovery. A failed read is cleared
// by any success.
const (
	opClaim  = "claiming due sources"
	opSave   = "saving a poll"
	opLookup = "dedup lookup"
)

var readKinds = map[string]bool{opLookup: true}

// outageLog logs database trouble at most once per interval, however many
// polls and ticks hit it, each line with how many operations failed since
// the line before and the last error, and once more when the database
// takes every kind of work again.
type outageLog struct {
	log   *slog.Logger
	every time.Duration

	mu       sync.Mutex
	failing  map[string]bool // kinds whose last attempt failed
	since    time.Time       // start of the outage
	logged   time.Time       // last line written
	failed   int             // failures since the outage began
	unlogged int             // failures since the last line
	last     error
	lastKind string
}

func newOutageLog(log *slog.Logger, every time.Duration) *outageLog {
	return &outageLog{log: log, every: every, failing: map[string]bool{}}
}

// report counts a failed database operation and logs the outage when no
// line was written within the interval.
func (o *outageLog) report(kind string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.failing) == 0 {
		o.since = time.Now()
	}
	o.failing[kind] = true
	o.failed++
	o.unlogged++
	o.last, o.lastKind = err, kind
	if o.logged.IsZero() || time.Since(o.logged) >= o.every {
		o.emit()
	}
}

// flush writes the failures counted since the last line, once the
// interval has passed, so a quiet outage is still reported every interval.
func (o *outageLog) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.unlogged > 0 && time.Since(o.logged) >= o.every {
		o.emit()
	}
}

func (o *outageLog) emit() {
	o.log.Error("database unavailable; polls will be redone when it returns", "during", o.lastKind, "err", o.last,
		"failures_since_last_report", o.unlogged, "failures_total", o.failed, "since", o.since.UTC().Format(time.RFC3339))
	o.logged, o.unlogged = time.Now(), 0
}

// recovered records a successful operation of kind; when no kind is
// failing any more, the end of the outage is logged.
func (o *outageLog) recovered(kind string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.failing) == 0 {
		return
	}
	delete(o.failing, kind)
	for k := range o.failing {
		if readKinds[k] {
			delete(o.failing, k)
		}
	}
	if len(o.failing) > 0 {
		return
	}
	o.log.Info("database reachable again", "failures_total", o.failed, "failures_not_reported_before", o.unlogged,
		"outage", time.Since(o.since).Round(time.Second).String(), "last_err", o.last)
	o.logged, o.failed, o.unlogged, o.last, o.lastKind = time.Time{}, 0, 0, nil, ""
}
