package sources

import (
	"errors"
	"fmt"
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
