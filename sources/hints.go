package sources

import (
	"slices"
	"time"
)

// Hints are what a publisher said, on one fetch, about when to come back
// and where else to listen: the feed's own declarations (RSS <ttl>,
// <skipHours>, <skipDays>, the syndication module's sy:update*), the
// response's caching headers (Cache-Control max-age, Expires,
// Retry-After), and the WebSub hub and topic URLs advertised in the feed
// or in Link headers.
//
// Values are carried as declared, absurd ones included (a ttl of 0 or of
// a billion minutes): the scheduling policy bounds them and says so in
// the next poll reason. The zero value means "no hints".
type Hints struct {
	// FeedRead says the feed-level fields below (TTL, SkipHours,
	// SkipDays, Syndication) were read from a feed body on this fetch. It
	// is false on a 304, which has no body: the ones read before still
	// hold then.
	FeedRead bool
	// TTL is RSS <ttl>, nil when the feed declares none.
	TTL *time.Duration
	// SkipHours are RSS <skipHours>: hours of the day, 0–23 in GMT, in
	// which the feed asks not to be read. Values outside 0–24 are dropped;
	// 24 is read as 0.
	SkipHours []int
	// SkipDays are RSS <skipDays>, days (in GMT) not to read the feed.
	SkipDays []time.Weekday
	// Syndication is the RSS syndication module's declaration, nil when
	// the feed has none.
	Syndication *Syndication

	// MaxAge is how long the response stays fresh by Cache-Control
	// max-age, less the Age the response already had; nil when the
	// response set none (or said no-store / no-cache).
	MaxAge *time.Duration
	// Expires is when the response goes stale by its Expires header, on
	// our clock (the server's Date is taken into account); zero when
	// absent, unreadable, already past, or superseded by max-age.
	Expires time.Time
	// RetryAfter is when a Retry-After header allows the next request;
	// zero when absent.
	RetryAfter time.Time

	// Hubs are the WebSub hubs the feed advertises (Link headers first,
	// then <link rel="hub"> / atom:link in the feed), absolute, without
	// duplicates.
	Hubs []string
	// Self is the feed's own canonical URL (rel="self"), the topic to
	// subscribe to; empty when not advertised.
	Self string
}

// Syndication is the syndication module's sy:updatePeriod,
// sy:updateFrequency and sy:updateBase: the feed is updated Frequency
// times per Period, on a schedule that starts at Base.
type Syndication struct {
	// Period is sy:updatePeriod lower-cased ("hourly", "daily", "weekly",
	// "monthly", "yearly"), "daily" when the feed names none, kept as
	// written when it names something else.
	Period string
	// Frequency is sy:updateFrequency; 1 when the feed names none, 0 when
	// what it names is not an integer.
	Frequency int64
	// Base is sy:updateBase, zero when absent or unreadable.
	Base time.Time
}

// Merge adds what other says to h: feed-level fields from other replace
// h's when other read a feed body, the HTTP fields when other has them;
// hubs are joined (h's first) and h's Self wins when both have one.
func (h Hints) Merge(other Hints) Hints {
	if other.FeedRead {
		h.FeedRead = true
		h.TTL, h.SkipHours, h.SkipDays, h.Syndication = other.TTL, other.SkipHours, other.SkipDays, other.Syndication
	}
	if other.MaxAge != nil {
		h.MaxAge = other.MaxAge
	}
	if !other.Expires.IsZero() {
		h.Expires = other.Expires
	}
	if !other.RetryAfter.IsZero() {
		h.RetryAfter = other.RetryAfter
	}
	h.Hubs = slices.Clone(h.Hubs)
	for _, hub := range other.Hubs {
		if !slices.Contains(h.Hubs, hub) {
			h.Hubs = append(h.Hubs, hub)
		}
	}
	if h.Self == "" {
		h.Self = other.Self
	}
	return h
}
