package webhooks

import (
	"math/rand/v2"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// Defaults for the zero values of Backoff.
const (
	DefaultBackoffBase   = 30 * time.Second
	DefaultBackoffMax    = time.Hour
	DefaultGiveUpAfter   = 24 * time.Hour
	DefaultMaxRejections = 5
)

// Backoff is the retry schedule of a delivery.
type Backoff struct {
	// Base is the wait after the first failed attempt; each further
	// failure doubles it, up to Max.
	Base, Max time.Duration
	// GiveUpAfter bounds a delivery's life from its event: no attempt is
	// scheduled later than that, the delivery fails instead.
	GiveUpAfter time.Duration
	// MaxRejections is how many 4xx answers (other than 408/410/425/429)
	// a delivery gets before it fails.
	MaxRejections int
	// Jitter returns a number in [0, 1); default math/rand/v2.
	Jitter func() float64
}

func (b Backoff) withDefaults() Backoff {
	if b.Base <= 0 {
		b.Base = DefaultBackoffBase
	}
	if b.Max <= 0 {
		b.Max = DefaultBackoffMax
	}
	b.Max = max(b.Max, b.Base)
	if b.GiveUpAfter <= 0 {
		b.GiveUpAfter = DefaultGiveUpAfter
	}
	if b.MaxRejections <= 0 {
		b.MaxRejections = DefaultMaxRejections
	}
	if b.Jitter == nil {
		b.Jitter = rand.Float64
	}
	return b
}

// Delay is the wait after failed attempt n (1-based): Base·2^(n-1) capped
// at Max, of which the upper half is random, so receivers that failed
// together are not retried together, and the wait still grows.
func (b Backoff) Delay(n int) time.Duration {
	d := sources.Backoff(b.Base, b.Max, n-1)
	return d/2 + time.Duration(b.Jitter()*float64(d/2))
}
