package sources

import (
	"context"
	"math/rand/v2"
	"time"
)

// MaxRetryBackoff caps one wait between retries within a fetch.
const MaxRetryBackoff = 30 * time.Second

// Backoff is the wait before retry number attempt (1-based):
// base·2^(attempt-1), capped at MaxRetryBackoff, with ±50% jitter so that
// sources that failed together do not retry together. base ≤ 0: no wait.
func Backoff(base time.Duration, attempt int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base << (attempt - 1)
	if d <= 0 || d > MaxRetryBackoff {
		d = MaxRetryBackoff
	}
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}

// Sleep waits d unless ctx ends first, and returns ctx's error then.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
