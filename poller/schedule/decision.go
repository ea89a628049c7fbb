package schedule

import (
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// Outcome is what a poll of the source came to.
type Outcome int

const (
	// Fetched: the source answered with content (HTTP 200); NewItems of
	// its items were new.
	Fetched Outcome = iota
	// NotModified: the source answered 304.
	NotModified
	// Failed: the poll failed and counts as the source's failure;
	// Observation.Failures is the consecutive count including this one.
	Failed
	// Deferred: no request was made or the server asked us to wait
	// (rate limited, circuit open, robots.txt): not the source's failure.
	Deferred
	// Skipped: nothing was learnt (gone, source type not polled): the
	// plain interval applies.
	Skipped
	// Pushed: new items arrived through WebSub, not through a poll. Pass
	// it to Learn, not to Next: a push does not move the next poll.
	Pushed
)

// Observation is what the poller knows after one poll.
type Observation struct {
	Outcome Outcome
	// Failures is the number of consecutive failures including this one
	// (Failed only).
	Failures int
	// RetryAfter is when the server allows the next request, from the
	// failure (Failed, Deferred); zero when it named none.
	RetryAfter time.Time
	// Cause is a short text for a deferral ("rate limited", "circuit
	// open"), shown in the reason; may be empty.
	Cause string
	// NewItems is how many items were new (stored) by this poll or push.
	NewItems int
	// Published are the publish times of the new items, when the source
	// gave them (len ≤ NewItems; zero times are unknown).
	Published []time.Time
	// Listed is how many items the fetched feed lists (len of
	// sources.Result.Items), 0 when not known. A feed's items roll over:
	// the policy comes back before half of them could have been replaced,
	// so that neither a burst nor a missed push loses items.
	Listed int
	// Hints are the fetch result's hints (sources.Result.Hints).
	Hints sources.Hints
	// Subscribed says the source's pushes arrive through WebSub (an
	// active, verified subscription).
	Subscribed bool
}

// Kind is the rule that placed a next poll: a small closed set, fit for a
// metrics label.
type Kind string

const (
	KindFixed    Kind = "fixed"
	KindAdaptive Kind = "adaptive"
	// KindBurst: the poll found most of the feed's listed items new, so
	// the next one comes at the floor, before the rest of a burst pushes
	// items out of the feed.
	KindBurst       Kind = "burst"
	KindTTL         Kind = "ttl"
	KindSyndication Kind = "syndication"
	KindCache       Kind = "cache"
	KindSkip        Kind = "skip"
	KindBackoff     Kind = "backoff"
	KindRetryAfter  Kind = "retry_after"
	KindDeferred    Kind = "deferred"
	KindWebSub      Kind = "websub"
)

// Kinds lists every Kind, for registering metrics up front.
func Kinds() []Kind {
	return []Kind{KindFixed, KindAdaptive, KindBurst, KindTTL, KindSyndication, KindCache, KindSkip,
		KindBackoff, KindRetryAfter, KindDeferred, KindWebSub}
}

// Decision is when to poll next and why.
type Decision struct {
	At time.Time
	// Reason is a short human-readable account, stable in form:
	// "adaptive: ~3 new/day → 2h10m", "ttl 120m", "backoff: 3 failures →
	// 4h", "skipHours until 07:00", "websub: subscribed, safety poll". A
	// hint that was bounded says so: "ttl 1000000m, clamped to ceiling
	// 24h", "… (ttl 0m below floor 5m)".
	Reason string
	Kind   Kind
}
