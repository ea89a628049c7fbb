package fetch

import (
	"log/slog"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

type breakerPhase int

const (
	phaseClosed breakerPhase = iota
	phaseOpen
	phaseHalfOpen
)

// breaker is one registrable domain's circuit breaker. A domain that keeps
// failing is left alone for a while instead of being hit by every source
// that lives on it.
type breaker struct {
	phase     breakerPhase
	failures  []time.Time // consecutive failed calls, pruned to the window
	openUntil time.Time
	trial     bool // a half-open trial call is in flight
	successes int  // successful trials since half-open
}

// outcome is how a finished call counts for the breaker.
type outcome int

const (
	// outcomeNeutral: the call says nothing about the server's health
	// (refused address, caller cancelled, rate limited, body too large).
	outcomeNeutral outcome = iota
	outcomeSuccess
	outcomeFailure
)

// maxURLRetryAfters bounds the per-URL Retry-After memory of one domain.
const maxURLRetryAfters = 256

// rateLimits is the Retry-After bookkeeping of one registrable domain.
type rateLimits struct {
	perURL map[string]time.Time
	hits   []rateHit // recent 429s
	until  time.Time // whole domain deferred until then
}

type rateHit struct {
	url        string
	at         time.Time
	retryAfter time.Time
}

// scopeState is the breaker and the rate-limit memory one scope keeps for
// one registrable domain.
type scopeState struct {
	breaker breaker
	limits  rateLimits
}

// admit decides under c.mu whether a call to rawURL may go out now. trial
// is true when the call is the breaker's half-open probe and must be
// reported back through finish.
func (c *Client) admit(ds *domainState, scope Scope, rawURL string) (trial bool, err *sources.FetchError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opts.Now()
	st := ds.scope(scope)
	name := ds.name + scope.suffix()

	if t, ok := st.limits.perURL[rawURL]; ok {
		if now.Before(t) {
			return false, &sources.FetchError{Kind: sources.KindDeferred, RetryAfter: t,
				Msg: "rate limited by server until " + t.UTC().Format(time.RFC3339)}
		}
		delete(st.limits.perURL, rawURL)
	}
	if now.Before(st.limits.until) {
		return false, &sources.FetchError{Kind: sources.KindDeferred, RetryAfter: st.limits.until,
			Msg: "rate limited by " + name + " until " + st.limits.until.UTC().Format(time.RFC3339)}
	}

	b := &st.breaker
	if b.phase == phaseOpen {
		if now.Before(b.openUntil) {
			return false, &sources.FetchError{Kind: sources.KindDeferred, RetryAfter: b.openUntil,
				Msg: "circuit open for " + name}
		}
		b.phase, b.trial, b.successes = phaseHalfOpen, false, 0
	}
	if b.phase == phaseHalfOpen {
		if b.trial {
			// The probe decides within one request timeout.
			return false, &sources.FetchError{Kind: sources.KindDeferred, RetryAfter: now.Add(c.opts.Timeout),
				Msg: "circuit half-open for " + name + ", trial request in flight"}
		}
		b.trial = true
		return true, nil
	}
	return false, nil
}

// finish records a call's outcome for the breaker and, for rate-limit
// answers, the Retry-After bookkeeping.
func (c *Client) finish(ds *domainState, scope Scope, trial bool, rawURL string, res outcome, fe *sources.FetchError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opts.Now()
	st := ds.scope(scope)
	b := &st.breaker
	log := c.opts.Logger.With("domain", ds.name, "scope", scope.String())

	if trial {
		b.trial = false
	}
	switch res {
	case outcomeSuccess:
		switch {
		case b.phase == phaseClosed:
			b.failures = b.failures[:0]
		case b.phase == phaseHalfOpen && trial:
			b.successes++
			if b.successes >= c.opts.BreakerCloseAfter {
				b.phase, b.failures, b.successes = phaseClosed, nil, 0
				log.Info("circuit closed")
			}
		}
	case outcomeFailure:
		switch {
		case b.phase == phaseClosed:
			cut := now.Add(-c.opts.BreakerWindow)
			kept := b.failures[:0]
			for _, t := range b.failures {
				if t.After(cut) {
					kept = append(kept, t)
				}
			}
			b.failures = append(kept, now)
			if len(b.failures) >= c.opts.BreakerFailures {
				b.phase, b.openUntil, b.failures = phaseOpen, now.Add(c.opts.BreakerOpenFor), nil
				log.Warn("circuit opened", "until", b.openUntil)
			}
		case b.phase == phaseHalfOpen && trial:
			b.phase, b.openUntil, b.successes = phaseOpen, now.Add(c.opts.BreakerOpenFor), 0
			log.Warn("circuit re-opened after failed trial", "until", b.openUntil)
		}
	}

	if fe != nil && fe.Kind == sources.KindRateLimited {
		c.noteRateLimitLocked(&st.limits, log, rawURL, fe, now)
	}
}

// noteRateLimitLocked remembers a Retry-After for the URL and, when several
// URLs of the domain keep answering 429, for the whole domain; neither
// for longer than MaxRateLimitWait.
func (c *Client) noteRateLimitLocked(rl *rateLimits, log *slog.Logger, rawURL string, fe *sources.FetchError, now time.Time) {
	if limit := now.Add(c.opts.MaxRateLimitWait); fe.RetryAfter.After(limit) {
		log.Info("Retry-After beyond the longest wait honoured; bounded",
			"retry_after", fe.RetryAfter.UTC().Format(time.RFC3339), "until", limit.UTC().Format(time.RFC3339))
		fe.RetryAfter = limit
	}
	if !fe.RetryAfter.IsZero() && fe.RetryAfter.After(now) {
		if rl.perURL == nil {
			rl.perURL = map[string]time.Time{}
		}
		if len(rl.perURL) >= maxURLRetryAfters {
			for u, t := range rl.perURL {
				if !t.After(now) {
					delete(rl.perURL, u)
				}
			}
		}
		if len(rl.perURL) < maxURLRetryAfters {
			rl.perURL[rawURL] = fe.RetryAfter
		}
	}
	if fe.Status != 429 {
		return
	}
	cut := now.Add(-c.opts.RateLimitWindow)
	kept := rl.hits[:0]
	for _, h := range rl.hits {
		if h.at.After(cut) {
			kept = append(kept, h)
		}
	}
	rl.hits = append(kept, rateHit{url: rawURL, at: now, retryAfter: fe.RetryAfter})
	if len(rl.hits) > 4*c.opts.RateLimitHits {
		rl.hits = rl.hits[len(rl.hits)-4*c.opts.RateLimitHits:]
	}

	distinct := map[string]bool{}
	var until time.Time
	for _, h := range rl.hits {
		distinct[h.url] = true
		if h.retryAfter.After(until) {
			until = h.retryAfter
		}
	}
	if len(rl.hits) < c.opts.RateLimitHits || len(distinct) < 2 {
		return
	}
	if !until.After(now) {
		until = now.Add(c.opts.RateLimitPause)
	}
	if until.After(rl.until) {
		rl.until = until
	}
	rl.hits = nil
	log.Warn("domain rate limited", "until", rl.until)
}
