package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// Next decides when to poll a source again after a poll that ended at
// now, and returns the state to store for the next call. It never fails:
// an unusable state starts afresh, absurd hints are bounded, and every
// decision lies in the future or at a time the server named.
//
//   - A failure backs off as the poller always has: the interval doubled
//     per consecutive failure up to MaxBackoff, with jitter, and never
//     before a Retry-After (itself capped at the larger of Ceiling and
//     MaxBackoff).
//   - A deferral goes to the Retry-After it carries, or to the plain
//     interval when it carries none.
//   - Fixed mode polls every Base whatever the publisher says.
//   - An adaptive source subscribed through WebSub is polled once per
//     Safety interval, unless that poll found items the hub never pushed.
//   - A poll that found half or more of the feed's listed items new is
//     followed by one at the floor: a burst is under way, and the rest of
//     it must not push items out of the feed unseen.
//   - Otherwise the adaptive interval, moved later by the publisher's
//     hints and out of its skipHours and skipDays, within [Floor, Ceiling].
func Next(now time.Time, cfg Config, s State, o Observation) (Decision, State) {
	cfg = cfg.withDefaults()
	if !s.sane() {
		s = State{}
	}
	known := !s.Fresh()
	s = learn(now, cfg, s, o)
	plainAt, plainText, plainKind := plain(now, cfg, s)
	plainDur := plainAt.Sub(now)
	switch o.Outcome {
	case Failed:
		return backoff(now, cfg, o, plainDur), s
	case Deferred:
		return deferred(now, cfg, o, plainDur), s
	}
	if o.Subscribed && cfg.Mode == Adaptive && !(o.Outcome == Fetched && o.NewItems > 0) {
		return safety(now, cfg, s, plainDur), s
	}
	if cfg.Mode == Fixed || o.Outcome == Skipped || o.Outcome == Pushed {
		return Decision{At: now.Add(plainDur + cfg.jitter(plainDur)), Reason: plainText, Kind: plainKind}, s
	}
	kind := KindAdaptive
	if known && overflowing(o) {
		plainAt = now.Add(cfg.Floor)
		plainText = fmt.Sprintf("burst: %d of %d listed items new → %s", o.NewItems, o.Listed, fmtDur(cfg.Floor))
		kind = KindBurst
	}
	d := hinted(now, cfg, s, o, plainAt, plainText, kind)
	if o.Subscribed {
		d.Reason = "websub: " + plural(o.NewItems, "new item", "new items") + " not pushed; " + d.Reason
	}
	return d, s
}

// overflowing reports whether a fetch found half or more of the listed
// items new: the feed is being replaced faster than it is read. (A
// source's first fetch lists its history, all of it new: the caller
// leaves that one out.)
func overflowing(o Observation) bool {
	return o.Outcome == Fetched && o.Listed >= 2 && o.NewItems >= 2 && 2*o.NewItems >= o.Listed
}

// safety is the poll of a source whose items are pushed: it catches what
// the hub failed to deliver, once per Safety interval, or sooner when a
// busy feed would otherwise roll its items over unseen.
func safety(now time.Time, cfg Config, s State, plainDur time.Duration) Decision {
	d := cfg.Safety
	if rate := s.longRate(); s.Listed >= 2 && rate > 0 {
		roll := time.Duration(min(rollOver(rate, s.Listed), cfg.Safety.Hours()) * float64(time.Hour))
		d = min(d, max(roll, plainDur))
	}
	d += cfg.jitter(d)
	return Decision{At: now.Add(d), Reason: "websub: subscribed, safety poll → " + fmtDur(d), Kind: KindWebSub}
}

// Learn takes in new items that arrived without a poll (a WebSub push),
// so that the estimate stays current while the source is not polled.
func Learn(now time.Time, cfg Config, s State, o Observation) State {
	if !s.sane() {
		s = State{}
	}
	o.Outcome = Pushed
	return learn(now, cfg.withDefaults(), s, o)
}

// plain is the source's own interval, before hints: Base for a fixed
// source, the adaptive estimate otherwise.
func plain(now time.Time, cfg Config, s State) (time.Time, string, Kind) {
	if cfg.Mode == Fixed {
		d := max(cfg.Base, time.Minute)
		return now.Add(d), "fixed " + fmtDur(d), KindFixed
	}
	at, text := adaptive(now, cfg, s)
	return at, text, KindAdaptive
}

// hinted moves the plain adaptive time later where a hint asks, adds the
// jitter, and keeps the result out of skipped hours and within the
// ceiling: when both cannot hold (a ttl of 23h and skipHours 22–03), the
// poll goes to the last open moment before the ceiling; only when no
// moment between the floor and the ceiling is open (a weekend of
// skipDays seen from Friday night) does the skip outlast the ceiling.
func hinted(now time.Time, cfg Config, s State, o Observation, at time.Time, text string, kind Kind) Decision {
	bounds, notes := hintBounds(now, cfg, s.Feed, o.Hints, s.rollOverAt())
	for _, b := range bounds {
		if b.at.After(at) {
			at, text, kind = b.at, b.text, b.kind
		}
	}
	interval := at.Sub(now)
	at = at.Add(cfg.jitter(interval))
	sk, skipNotes := skipsOf(s.Feed)
	notes = append(notes, skipNotes...)
	moved, skipText, skipped := sk.next(now, at)
	if skipped {
		at, text, kind = moved.Add(cfg.jitter(min(interval, time.Hour))), skipText, KindSkip
	}
	if limit := now.Add(cfg.Ceiling); at.After(limit) {
		switch open, from, ok := sk.lastOpen(now.Add(cfg.Floor), limit); {
		case ok && from.IsZero():
			if skipped {
				text += ", clamped to ceiling " + fmtDur(cfg.Ceiling)
			}
			at = open
		case ok:
			// The skipped hours that begin at from would carry the poll
			// past the ceiling: it comes just before them instead.
			at, kind = open, KindSkip
			text = sk.which(from) + " from " + fmtClock(from, now) + ", polled before them within ceiling " + fmtDur(cfg.Ceiling)
		default:
			text += ", past ceiling " + fmtDur(cfg.Ceiling) + ": no open hour before it"
		}
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, "; ") + ")"
	}
	return Decision{At: at, Reason: text, Kind: kind}
}

// backoff is today's failure rule: the source's interval doubled per
// consecutive failure, at least the interval and at most MaxBackoff (or
// the interval, when that is longer), jitter included; a later
// Retry-After wins.
func backoff(now time.Time, cfg Config, o Observation, base time.Duration) Decision {
	failures := max(o.Failures, 1)
	interval := max(base, sources.Backoff(base, cfg.MaxBackoff, failures))
	interval += cfg.jitter(interval)
	interval = min(interval, max(base, cfg.MaxBackoff))
	d := Decision{At: now.Add(interval), Kind: KindBackoff,
		Reason: "backoff: " + plural(failures, "failure", "failures") + " → " + fmtDur(interval)}
	if ra := retryAfterOf(o); !ra.IsZero() {
		if at, text := cfg.retryAfter(now, ra); at.After(d.At) {
			d = Decision{At: at, Kind: KindRetryAfter, Reason: text + " (" + plural(failures, "failure", "failures") + ")"}
		}
	}
	return d
}

// deferred: not the source's failure. Not before the server (or our own
// circuit breaker) allows, and not much later either; never before the
// floor, whatever was named: a retry is a request like any other.
func deferred(now time.Time, cfg Config, o Observation, plainDur time.Duration) Decision {
	cause := ""
	if o.Cause != "" {
		cause = " (" + o.Cause + ")"
	}
	if ra := retryAfterOf(o); !ra.IsZero() {
		at, text := cfg.retryAfter(now, ra)
		return Decision{At: at, Reason: text + cause, Kind: KindRetryAfter}
	}
	d := max(plainDur, cfg.Floor)
	d += cfg.jitter(d)
	return Decision{At: now.Add(d), Reason: "deferred" + cause + " → " + fmtDur(d), Kind: KindDeferred}
}

func retryAfterOf(o Observation) time.Time {
	if !o.RetryAfter.IsZero() {
		return o.RetryAfter
	}
	return o.Hints.RetryAfter
}

// retryAfter honours a Retry-After within [Floor, max(Ceiling,
// MaxBackoff)]: a server cannot stop a source by asking for a year, nor
// have it polled every tick with "Retry-After: 0" or a date already past.
// The wait is measured from now, the moment of the decision: a time read
// against another clock (or long ago) still lands at least the floor
// ahead, never before the poll.
func (c Config) retryAfter(now, ra time.Time) (time.Time, string) {
	limit := max(c.Ceiling, c.MaxBackoff)
	wait := ra.Sub(now)
	switch {
	case wait > limit:
		return now.Add(limit), "retry-after " + fmtDur(wait) + ", clamped to " + fmtDur(limit)
	case wait < c.Floor:
		return now.Add(c.Floor), "retry-after " + fmtDur(wait) + ", raised to floor " + fmtDur(c.Floor)
	}
	return ra, "retry-after " + fmtDur(wait)
}
