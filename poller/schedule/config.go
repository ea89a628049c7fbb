// Package schedule is the scheduling policy: given what one poll of a
// feed source found, it decides when to poll the source next and says
// why. It is pure: no database, no network, no clock of its own. The
// poller calls Next after every poll, stores the returned State in the
// source's row and the Decision's time and reason beside it; the
// simulation in bench/schedsim calls the very same code.
//
// The model (docs/scheduling.md explains it in full): from the source's
// history of new items, a decayed publishing rate, an hour-of-day and
// day-of-week rhythm and a short-term burst rate are kept; the next poll
// is placed where the expected waiting of new items is worth one request
// (a square-root rule above a target latency), then publisher hints (ttl, the syndication
// module, Cache-Control, Expires, Retry-After, skipHours, skipDays) may
// move it later, never before the floor nor past the ceiling.
package schedule

import (
	"fmt"
	"time"
)

// Mode is how a source's interval is chosen.
type Mode string

const (
	// Adaptive learns the interval from what polls find (the default).
	Adaptive Mode = "adaptive"
	// Fixed polls at the configured interval, whatever publishers say;
	// only failures and Retry-After move it.
	Fixed Mode = "fixed"
)

// ParseMode reads a mode as an admin writes it; "" is Adaptive.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Adaptive:
		return Adaptive, nil
	case Fixed:
		return Fixed, nil
	}
	return "", fmt.Errorf("schedule mode %q: want %q or %q", s, Adaptive, Fixed)
}

// Defaults of Config's zero fields.
const (
	DefaultBase       = 30 * time.Minute
	DefaultFloor      = 5 * time.Minute
	DefaultCeiling    = 24 * time.Hour
	DefaultMaxBackoff = 24 * time.Hour
	DefaultSafety     = 24 * time.Hour
	DefaultTarget     = 25 * time.Minute
	DefaultBalance    = 30 * time.Minute
)

// Config is one source's scheduling settings. Zero fields take the
// defaults above.
type Config struct {
	Mode Mode
	// Base is the fixed interval, and where an adaptive source starts
	// before it has any history (the source's polling interval: 30
	// minutes for feeds, 360 for web pages by default).
	Base time.Duration
	// Floor is the earliest an adaptive poll or a hint may place the next
	// poll (default 5m).
	Floor time.Duration
	// Ceiling is the latest an adaptive poll or a hint may place it
	// (default 24h): no hint can stop a source.
	Ceiling time.Duration
	// MaxBackoff caps the failure backoff (default 24h) as today's
	// poller does: a failing source is never left longer than MaxBackoff,
	// or its own interval when that is longer.
	MaxBackoff time.Duration
	// Jitter spreads next polls later by up to this share of the interval
	// (0–1), so that sources added together drift apart.
	Jitter float64
	// Safety is the interval of a source whose pushes arrive through
	// WebSub (default 24h).
	Safety time.Duration
	// Target is the detection latency the adaptive rule aims at for
	// active sources: polling faster than Target is never worth a request
	// (default 25m).
	Target time.Duration
	// Balance is how much waiting beyond Target one request is worth: an
	// adaptive source whose items come every gap g on average is polled
	// every √(Target² + 2·Balance·g) (default 30m).
	Balance time.Duration
	// Rand draws the jitter, uniform in [0,1); nil means no jitter. Inject
	// a seeded source where runs must repeat.
	Rand func() float64
}

func (c Config) withDefaults() Config {
	if c.Mode != Fixed {
		c.Mode = Adaptive
	}
	if c.Base <= 0 {
		c.Base = DefaultBase
	}
	if c.Floor <= 0 {
		c.Floor = DefaultFloor
	}
	if c.Ceiling <= 0 {
		c.Ceiling = DefaultCeiling
	}
	c.Ceiling = max(c.Ceiling, c.Floor)
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	if c.Safety <= 0 {
		c.Safety = DefaultSafety
	}
	if c.Target <= 0 {
		c.Target = DefaultTarget
	}
	if c.Balance <= 0 {
		c.Balance = DefaultBalance
	}
	c.Jitter = min(max(c.Jitter, 0), 1)
	return c
}

// jitter is a random extra of up to Jitter × d.
func (c Config) jitter(d time.Duration) time.Duration {
	if c.Rand == nil || c.Jitter == 0 {
		return 0
	}
	return time.Duration(c.Rand() * c.Jitter * float64(d))
}
