package schedule

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// monday is a Monday, 10:00 UTC.
var monday = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func dur(d time.Duration) *time.Duration { return &d }

// steadyState is a source that has long published rate items an hour,
// with no rhythm, as of now.
func steadyState(now time.Time, rate float64) State {
	return State{Updated: now, Exposure: 100, Count: 100 * rate, LastNew: now.Add(-time.Minute)}
}

// busy publishes 2 items an hour: its adaptive interval (√(Target² +
// 2·Balance/rate) with the defaults) is about 49 minutes, under two
// typical gaps (an hour).
const busy = 2.0

func TestNextHints(t *testing.T) {
	type tc struct {
		name   string
		now    time.Time
		cfg    Config
		feed   FeedHints
		obs    Observation
		wantIn time.Duration // At − now; 0: only the reason is checked
		// pastCeiling: the skipped hours leave no open moment before the
		// ceiling, and the poll may come after it.
		pastCeiling bool
		kind        Kind
		reason      string // the reason must contain this
	}
	fri := time.Date(2026, 3, 6, 23, 50, 0, 0, time.UTC)
	cases := []tc{
		{name: "adaptive", obs: Observation{Outcome: NotModified}, kind: KindAdaptive, reason: "adaptive: ~48 new/day → 49m"},
		{name: "ttl moves the poll later", feed: FeedHints{TTL: 2 * time.Hour, HasTTL: true},
			obs: Observation{Outcome: NotModified}, wantIn: 2 * time.Hour, kind: KindTTL, reason: "ttl 120m"},
		{name: "ttl shorter than the adaptive interval", feed: FeedHints{TTL: 10 * time.Minute, HasTTL: true},
			obs: Observation{Outcome: NotModified}, kind: KindAdaptive, reason: "adaptive:"},
		{name: "ttl 0 is below the floor and the reason says so", feed: FeedHints{HasTTL: true},
			obs: Observation{Outcome: NotModified}, kind: KindAdaptive, reason: "(ttl 0m below floor 5m)"},
		{name: "ttl of a billion minutes is clamped to the ceiling",
			feed: FeedHints{TTL: time.Duration(math.MaxInt64), HasTTL: true}, obs: Observation{Outcome: NotModified},
			wantIn: 24 * time.Hour, kind: KindTTL, reason: "ttl over 100 years, clamped to ceiling 24h"},
		{name: "ttl read from this fetch", obs: Observation{Outcome: Fetched,
			Hints: sources.Hints{FeedRead: true, TTL: dur(75 * time.Minute)}}, wantIn: 75 * time.Minute, kind: KindTTL,
			reason: "ttl 75m"},
		{name: "a 304 keeps the ttl read before", feed: FeedHints{TTL: 90 * time.Minute, HasTTL: true},
			obs: Observation{Outcome: NotModified}, wantIn: 90 * time.Minute, kind: KindTTL, reason: "ttl 90m"},
		{name: "a feed that dropped its ttl", feed: FeedHints{TTL: 90 * time.Minute, HasTTL: true},
			obs: Observation{Outcome: Fetched, Hints: sources.Hints{FeedRead: true}}, kind: KindAdaptive, reason: "adaptive:"},
		{name: "sy hourly", feed: FeedHints{SyPeriod: "hourly", SyFrequency: 1}, obs: Observation{Outcome: NotModified},
			wantIn: time.Hour, kind: KindSyndication, reason: "syndication 1/hourly"},
		{name: "sy updateBase aligns to the next slot",
			feed: FeedHints{SyPeriod: "daily", SyFrequency: 4, SyBase: time.Date(2000, 1, 1, 3, 0, 0, 0, time.UTC)},
			obs:  Observation{Outcome: NotModified}, wantIn: 5 * time.Hour, kind: KindSyndication,
			reason: "syndication 4/daily, next slot 15:00"},
		{name: "sy unknown period", feed: FeedHints{SyPeriod: "fortnightly", SyFrequency: 1},
			obs: Observation{Outcome: NotModified}, kind: KindAdaptive, reason: `(sy:updatePeriod "fortnightly" unknown, ignored)`},
		{name: "sy frequency 0", feed: FeedHints{SyPeriod: "hourly"}, obs: Observation{Outcome: NotModified},
			kind: KindAdaptive, reason: "(sy:updateFrequency 0 ignored)"},
		{name: "sy absurd frequency", feed: FeedHints{SyPeriod: "hourly", SyFrequency: math.MaxInt64},
			obs: Observation{Outcome: NotModified}, kind: KindAdaptive, reason: "below floor 5m)"},
		{name: "sy yearly is clamped", feed: FeedHints{SyPeriod: "yearly", SyFrequency: 1},
			obs: Observation{Outcome: NotModified}, wantIn: 24 * time.Hour, kind: KindSyndication,
			reason: "syndication 1/yearly, clamped to ceiling 24h"},
		{name: "304 with Cache-Control max-age",
			obs:    Observation{Outcome: NotModified, Hints: sources.Hints{MaxAge: dur(2 * time.Hour)}},
			wantIn: 2 * time.Hour, kind: KindCache, reason: "cache-control max-age 2h"},
		{name: "304 with Expires",
			obs:    Observation{Outcome: NotModified, Hints: sources.Hints{Expires: monday.Add(75 * time.Minute)}},
			wantIn: 75 * time.Minute, kind: KindCache, reason: "expires in 1h15m"},
		{name: "max-age of a year is clamped",
			obs:    Observation{Outcome: Fetched, Hints: sources.Hints{MaxAge: dur(365 * 24 * time.Hour)}},
			wantIn: 24 * time.Hour, kind: KindCache, reason: "cache-control max-age 8760h, clamped to ceiling 24h"},
		{name: "short max-age changes nothing and is not noted",
			obs:  Observation{Outcome: NotModified, Hints: sources.Hints{MaxAge: dur(time.Minute)}},
			kind: KindAdaptive, reason: "→ 49m"},
		{name: "retry-after on a success",
			obs:    Observation{Outcome: Fetched, Hints: sources.Hints{RetryAfter: monday.Add(3 * time.Hour)}},
			wantIn: 3 * time.Hour, kind: KindRetryAfter, reason: "retry-after 3h"},
		{name: "the latest hint wins", feed: FeedHints{TTL: time.Hour, HasTTL: true},
			obs:    Observation{Outcome: NotModified, Hints: sources.Hints{MaxAge: dur(3 * time.Hour)}},
			wantIn: 3 * time.Hour, kind: KindCache, reason: "cache-control max-age 3h"},
		{name: "fixed ignores the publisher", cfg: Config{Mode: Fixed, Base: 30 * time.Minute},
			feed: FeedHints{TTL: 2 * time.Hour, HasTTL: true, SkipHours: 1<<24 - 1},
			obs:  Observation{Outcome: NotModified}, wantIn: 30 * time.Minute, kind: KindFixed, reason: "fixed 30m"},
		{name: "skipHours are GMT hours", now: time.Date(2026, 3, 2, 23, 55, 0, 0, time.UTC),
			feed: FeedHints{SkipHours: 0b1111111}, obs: Observation{Outcome: NotModified},
			wantIn: 7*time.Hour + 5*time.Minute, kind: KindSkip, reason: "skipHours until Tue 07:00"},
		{name: "skipHours whatever zone the clock is in (08:55 in Tokyo is 23:55 GMT)",
			now:  time.Date(2026, 3, 3, 8, 55, 0, 0, time.FixedZone("JST", 9*3600)),
			feed: FeedHints{SkipHours: 0b1111111}, obs: Observation{Outcome: NotModified},
			wantIn: 7*time.Hour + 5*time.Minute, kind: KindSkip, reason: "skipHours until Tue 07:00"},
		{name: "skipHours after a ttl", now: time.Date(2026, 3, 2, 22, 30, 0, 0, time.UTC),
			feed: FeedHints{TTL: 2 * time.Hour, HasTTL: true, SkipHours: 1 << 0},
			obs:  Observation{Outcome: NotModified}, wantIn: 2*time.Hour + 30*time.Minute, kind: KindSkip,
			reason: "skipHours until Tue 01:00"},
		{name: "skipHours covering every hour are ignored", feed: FeedHints{SkipHours: 1<<24 - 1},
			obs: Observation{Outcome: NotModified}, kind: KindAdaptive, reason: "(skipHours covers all 24 hours, ignored)"},
		{name: "skipDays over a weekend: the last open moment before the ceiling", now: fri,
			feed: FeedHints{SkipDays: 1<<time.Saturday | 1<<time.Sunday}, obs: Observation{Outcome: NotModified},
			wantIn: 5 * time.Minute, kind: KindSkip, reason: "skipDays from Sat 00:00, polled before them within ceiling 24h"},
		{name: "skipDays: a hint that reaches into Saturday comes on Friday",
			now:    time.Date(2026, 3, 6, 12, 0, 0, 0, time.UTC),
			feed:   FeedHints{SkipDays: 1<<time.Saturday | 1<<time.Sunday},
			obs:    Observation{Outcome: NotModified, Hints: sources.Hints{MaxAge: dur(20 * time.Hour)}},
			wantIn: 11*time.Hour + 55*time.Minute, kind: KindSkip, reason: "skipDays from Sat 00:00, polled before them within ceiling 24h"},
		{name: "skipDays: no open moment before the ceiling, the skip outlasts it",
			now:  time.Date(2026, 3, 6, 23, 58, 0, 0, time.UTC),
			feed: FeedHints{SkipDays: 1<<time.Saturday | 1<<time.Sunday}, obs: Observation{Outcome: NotModified},
			wantIn: 48*time.Hour + 2*time.Minute, pastCeiling: true, kind: KindSkip,
			reason: "skipDays until Mon 00:00, past ceiling 24h: no open hour before it"},
		{name: "ttl 23h and skipHours 22–03 at 00:30: before 22:00, not at 00:30",
			now:  time.Date(2026, 3, 2, 0, 30, 0, 0, time.UTC),
			feed: FeedHints{TTL: 23 * time.Hour, HasTTL: true, SkipHours: 1<<22 | 1<<23 | 1<<0 | 1<<1 | 1<<2 | 1<<3},
			obs:  Observation{Outcome: NotModified}, wantIn: 21*time.Hour + 25*time.Minute, kind: KindSkip,
			reason: "skipHours from 22:00, polled before them within ceiling 24h"},
		{name: "ttl 23h and skipHours 22–03 at 01:30: the skip moves the poll past the ceiling, it comes before",
			now:  time.Date(2026, 3, 2, 1, 30, 0, 0, time.UTC),
			feed: FeedHints{TTL: 23 * time.Hour, HasTTL: true, SkipHours: 1<<22 | 1<<23 | 1<<0 | 1<<1 | 1<<2 | 1<<3},
			obs:  Observation{Outcome: NotModified}, wantIn: 20*time.Hour + 25*time.Minute, kind: KindSkip,
			reason: "skipHours from 22:00, polled before them within ceiling 24h"},
		{name: "a clamped ttl whose ceiling is open stays at the ceiling",
			now:  time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC),
			feed: FeedHints{TTL: 30 * time.Hour, HasTTL: true, SkipHours: 1 << 14},
			obs:  Observation{Outcome: NotModified}, wantIn: 24 * time.Hour, kind: KindTTL,
			reason: "ttl 1800m, clamped to ceiling 24h"},
		{name: "skipDays covering every day are ignored", feed: FeedHints{SkipDays: 1<<7 - 1},
			obs: Observation{Outcome: NotModified}, kind: KindAdaptive, reason: "(skipDays covers all 7 days, ignored)"},
		{name: "websub: subscribed", obs: Observation{Outcome: NotModified, Subscribed: true},
			wantIn: 24 * time.Hour, kind: KindWebSub, reason: "websub: subscribed, safety poll → 24h"},
		{name: "websub: a fetch that found only pushed items", obs: Observation{Outcome: Fetched, Subscribed: true},
			wantIn: 24 * time.Hour, kind: KindWebSub, reason: "websub: subscribed, safety poll"},
		{name: "websub: items the hub did not push", obs: Observation{Outcome: Fetched, Subscribed: true, NewItems: 2},
			kind: KindAdaptive, reason: "websub: 2 new items not pushed; adaptive:"},
		{name: "websub in fixed mode polls as fixed", cfg: Config{Mode: Fixed},
			obs: Observation{Outcome: NotModified, Subscribed: true}, wantIn: 30 * time.Minute, kind: KindFixed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := c.now
			if now.IsZero() {
				now = monday
			}
			s := steadyState(now, busy)
			s.Feed = c.feed
			d, _ := Next(now, c.cfg, s, c.obs)
			if d.Kind != c.kind {
				t.Errorf("kind = %s, want %s (reason %q)", d.Kind, c.kind, d.Reason)
			}
			if !strings.Contains(d.Reason, c.reason) {
				t.Errorf("reason = %q, want it to contain %q", d.Reason, c.reason)
			}
			if c.wantIn != 0 && d.At.Sub(now) != c.wantIn {
				t.Errorf("next poll in %v, want %v (reason %q)", d.At.Sub(now), c.wantIn, d.Reason)
			}
			if in := d.At.Sub(now); in < DefaultFloor || (in > DefaultCeiling && !c.pastCeiling) {
				t.Errorf("next poll in %v: outside [floor, ceiling]", in)
			}
			if c.cfg.Mode != Fixed && !readable(c.feed, d.At) {
				t.Errorf("next poll at %s, in a skipped hour or day (%q)", d.At.UTC().Format("Mon 15:04"), d.Reason)
			}
		})
	}
}

// The websub safety poll comes before a busy feed's items roll over.
func TestSafetyBeforeRollOver(t *testing.T) {
	s := steadyState(monday, 1) // an item an hour
	s.Listed = 20
	d, _ := Next(monday, Config{}, s, Observation{Outcome: NotModified, Subscribed: true})
	if got := d.At.Sub(monday); got != 10*time.Hour || d.Reason != "websub: subscribed, safety poll → 10h" {
		t.Errorf("safety poll in %v (%q), want 10h: half of 20 items at one an hour", got, d.Reason)
	}
}

// Over a week of decision times, for feeds that skip weekends, nights or
// all but one hour, under hints that reach close to the ceiling: the next
// poll never falls in a skipped hour or day, and it lies past the ceiling
// only when no open stretch of five minutes (the lead a poll placed before
// skipped hours takes) lies between the floor and the ceiling.
func TestSkipsWithinTheCeiling(t *testing.T) {
	masks := map[string]FeedHints{
		"weekend":            {SkipDays: 1<<time.Saturday | 1<<time.Sunday},
		"nights 22–03":       {SkipHours: 1<<22 | 1<<23 | 1<<0 | 1<<1 | 1<<2 | 1<<3},
		"all but 09:00":      {SkipHours: (1<<24 - 1) &^ (1 << 9)},
		"weekend and 00–08":  {SkipDays: 1<<time.Saturday | 1<<time.Sunday, SkipHours: 1<<9 - 1},
		"six days of seven":  {SkipDays: 1<<7 - 1 - 1<<time.Wednesday},
		"weekend, ttl 23h":   {SkipDays: 1<<time.Saturday | 1<<time.Sunday, TTL: 23 * time.Hour, HasTTL: true},
		"nights, ttl 23h":    {SkipHours: 1<<22 | 1<<23 | 1<<0 | 1<<1 | 1<<2 | 1<<3, TTL: 23 * time.Hour, HasTTL: true},
		"all but 09:00, ttl": {SkipHours: (1<<24 - 1) &^ (1 << 9), TTL: 20 * time.Hour, HasTTL: true},
	}
	for name, feed := range masks {
		for now := monday; now.Before(monday.Add(7 * 24 * time.Hour)); now = now.Add(37 * time.Minute) {
			s := steadyState(now, 0.01)
			s.Feed = feed
			d, _ := Next(now, Config{Jitter: 0.1, Rand: func() float64 { return 0.7 }}, s, Observation{Outcome: NotModified})
			in := d.At.Sub(now)
			if !readable(feed, d.At) {
				t.Fatalf("%s at %s: next poll %s, skipped (%q)", name, now.Format("Mon 15:04"), d.At.Format("Mon 15:04"), d.Reason)
			}
			if in < DefaultFloor {
				t.Fatalf("%s at %s: next poll in %v, under the floor (%q)", name, now.Format("Mon 15:04"), in, d.Reason)
			}
			if in <= DefaultCeiling {
				continue
			}
			for c := now.Add(DefaultFloor); !c.After(now.Add(DefaultCeiling)); c = c.Add(time.Minute) {
				if readable(feed, c) && readable(feed, c.Add(5*time.Minute-time.Nanosecond)) {
					t.Fatalf("%s at %s: next poll %s, past the ceiling though %s was open (%q)", name, now.Format("Mon 15:04"),
						d.At.Format("Mon 15:04"), c.Format("Mon 15:04"), d.Reason)
				}
			}
		}
	}
}

// readable says whether the feed may be read at t by its skipHours and
// skipDays (GMT), as RSS 2.0 defines them; a declaration covering every
// hour or every day is ignored.
func readable(f FeedHints, t time.Time) bool {
	u := t.UTC()
	hourSkipped := f.SkipHours != 1<<24-1 && f.SkipHours&(1<<u.Hour()) != 0
	daySkipped := f.SkipDays != 1<<7-1 && f.SkipDays&(1<<u.Weekday()) != 0
	return !hourSkipped && !daySkipped
}
