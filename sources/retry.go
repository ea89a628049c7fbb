package sources

import (
	"context"
	"math"
	"math/rand/v2"
	"time"
)

// Backoff is base doubled n times, never more than limit: the one
// exponential backoff of the daemon. A fetch's retries (RetryWait), a
// failing source's next poll (poller/schedule) and a failing webhook
// delivery's next attempt (webhooks) each add their own jitter to it.
// base ≤ 0: 0; n ≤ 0: base (or limit, if that is less).
func Backoff(base, limit time.Duration, n int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 0; i < n && d < limit && d <= math.MaxInt64/2; i++ {
		d *= 2
	}
	return min(d, limit)
}

// MaxRetryBackoff caps one wait between retries within a fetch.
const MaxRetryBackoff = 30 * time.Second

// RetryWait is the wait before retry number attempt (1-based) within one
// fetch: base·2^(attempt-1), capped at MaxRetryBackoff, with ±50% jitter so
// that sources that failed together do not retry together. base ≤ 0: no
// wait.
func RetryWait(base time.Duration, attempt int) time.Duration {
	d := Backoff(base, MaxRetryBackoff, attempt-1)
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
