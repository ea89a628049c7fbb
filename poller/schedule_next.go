package poller

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

// nextPoll is when a source is polled again: its interval, stretched by
// 2^failures after consecutive failures (capped), with a little jitter so
// that sources added together spread out. The cap holds with the jitter
// too: a failing source is never left longer than MaxBackoff (or its own
// interval, when that is longer).
func (p *Poller) nextPoll(src store.FeedSource, failures int) time.Time {
	base := time.Duration(max(src.PollingIntervalMinutes, 1)) * time.Minute
	interval := base
	if failures > 0 {
		backoff := interval
		for i := 0; i < failures && backoff < p.opts.MaxBackoff; i++ {
			backoff *= 2
		}
		interval = max(interval, min(backoff, p.opts.MaxBackoff))
	}
	if p.opts.Jitter > 0 {
		interval += time.Duration(rand.Float64() * p.opts.Jitter * float64(interval))
	}
	if failures > 0 {
		interval = min(interval, max(base, p.opts.MaxBackoff))
	}
	return time.Now().Add(interval).UTC()
}

// failure turns a failed fetch into the source's bookkeeping. What counts
// as the source's own failure is deliberate: rate limits and open circuit
// breakers defer the source without counting; 410 Gone pauses it at once.
func (p *Poller) failure(src store.FeedSource, err error) store.SourceUpdate {
	msg := err.Error()
	var fe *sources.FetchError
	errors.As(err, &fe)
	kind := sources.KindOf(err)
	switch kind {
	case sources.KindRateLimited, sources.KindDeferred:
		next := p.nextPoll(src, 0)
		if fe != nil && !fe.RetryAfter.IsZero() {
			// Not before the server allows, and not much later either.
			next = fe.RetryAfter.UTC()
		}
		return store.SourceUpdate{Status: store.StatusDeferred, Error: msg, NextPollAt: next}
	case sources.KindGone:
		return store.SourceUpdate{Status: store.StatusGone, Error: msg + " (source deactivated)", Deactivate: true,
			NextPollAt: p.nextPoll(src, 0)}
	case sources.KindNotSupported:
		return store.SourceUpdate{Status: store.StatusNotSupported, Error: msg, NextPollAt: p.nextPoll(src, 0)}
	}
	next := p.nextPoll(src, src.ConsecutiveFailures+1)
	if fe != nil && fe.RetryAfter.After(next) {
		next = fe.RetryAfter.UTC()
	}
	return store.SourceUpdate{Status: store.StatusError, Error: msg, Failed: true, NextPollAt: next}
}
