package sources

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// ErrorKind says how the poller must treat a failed fetch.
type ErrorKind int

const (
	// KindTransient: timeouts, resets, 5xx, 408. Worth retrying; counts as a
	// source failure when retries are exhausted.
	KindTransient ErrorKind = iota
	// KindPermanent: 4xx (other than 408/410/429), unparsable bodies, wrong
	// content type, refused addresses. Never retried within a poll.
	KindPermanent
	// KindGone: HTTP 410. The source is deactivated with this reason.
	KindGone
	// KindRateLimited: 429, or 503 with Retry-After. A deferral, not a failure.
	KindRateLimited
	// KindNotSupported: the source type is not polled (api).
	KindNotSupported
	// KindPaused: the fetch service itself refuses us (Firecrawl 401/402):
	// an operator must act; counts as a failure.
	KindPaused
	// KindDeferred: no request was made (the domain's circuit breaker is
	// open, or robots.txt asked us to wait). Not the source's own failure.
	KindDeferred
	// KindRefused: the address policy refused the source's own host (a
	// private or internal address, unless the configuration allows it). A
	// matter of configuration, not the source's failure: no request was
	// made. A redirect to a refused host is the source's doing: permanent.
	KindRefused
)

func (k ErrorKind) String() string {
	switch k {
	case KindTransient:
		return "transient"
	case KindPermanent:
		return "permanent"
	case KindGone:
		return "gone"
	case KindRateLimited:
		return "rate_limited"
	case KindNotSupported:
		return "not_supported"
	case KindPaused:
		return "paused"
	case KindDeferred:
		return "deferred"
	case KindRefused:
		return "refused"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// FetchError is the classified failure of a fetch. Every fetcher returns its
// failures wrapped in one (errors.As finds it).
type FetchError struct {
	Kind ErrorKind
	// Status is the HTTP status that caused the failure, 0 when none.
	Status int
	// RetryAfter is when the server allows the next request (zero: unknown).
	RetryAfter time.Time
	// Msg is a short human-readable reason, e.g. "HTTP 404" or
	// "content type application/pdf is not HTML".
	Msg string
	Err error
}

func (e *FetchError) Error() string {
	if e.Err != nil && e.Msg != "" {
		return e.Msg + ": " + e.Err.Error()
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

func (e *FetchError) Unwrap() error { return e.Err }

// KindOf reports the kind of a fetch failure; errors that carry no
// FetchError are transient (network trouble we could not classify).
func KindOf(err error) ErrorKind {
	var fe *FetchError
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return KindTransient
}

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
