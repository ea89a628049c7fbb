package schedule

import (
	"strconv"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// bound is a hint's earliest time for the next poll, with the text the
// reason shows for it.
type bound struct {
	at   time.Time
	text string
	kind Kind
}

// hintBounds are the publisher's hints that ask for a later poll, each
// kept within [Floor, Ceiling], and notes on the hints that were out of
// bounds: a hint past the ceiling is clamped to it (and its text says
// so); a declared hint below the floor cannot move anything (hints only
// move polls later) and is noted. What the feed declares (ttl, the
// syndication module) is also cut to roll, the time in which the feed's
// own publishing would replace half its listed items (0: unknown): a
// declaration the feed's activity contradicts must not lose items.
func hintBounds(now time.Time, cfg Config, f FeedHints, h sources.Hints, roll time.Duration) (bounds []bound, notes []string) {
	add := func(d time.Duration, text string, kind Kind, declared bool) {
		switch {
		case declared && roll >= cfg.Floor && d > roll && roll < cfg.Ceiling:
			bounds = append(bounds, bound{now.Add(roll), text + ", cut to " + fmtDur(roll) + " before the feed rolls over", kind})
		case d > cfg.Ceiling:
			bounds = append(bounds, bound{now.Add(cfg.Ceiling), text + ", clamped to ceiling " + fmtDur(cfg.Ceiling), kind})
		case d >= cfg.Floor:
			bounds = append(bounds, bound{now.Add(d), text, kind})
		case declared:
			notes = append(notes, text+" below floor "+fmtDur(cfg.Floor))
		}
	}
	if f.HasTTL {
		add(f.TTL, "ttl "+fmtMinutes(f.TTL), KindTTL, true)
	}
	if f.SyPeriod != "" {
		d, text, note := syndication(now, cfg, f)
		if note != "" {
			notes = append(notes, note)
		} else {
			add(d, text, KindSyndication, true)
		}
	}
	if h.MaxAge != nil {
		add(*h.MaxAge, "cache-control max-age "+fmtDur(*h.MaxAge), KindCache, false)
	}
	if !h.Expires.IsZero() {
		d := h.Expires.Sub(now)
		add(d, "expires in "+fmtDur(d), KindCache, false)
	}
	if !h.RetryAfter.IsZero() {
		d := h.RetryAfter.Sub(now)
		add(d, "retry-after "+fmtDur(d), KindRetryAfter, false)
	}
	return bounds, notes
}

// syPeriods are the syndication module's update periods.
var syPeriods = map[string]time.Duration{
	"hourly": time.Hour, "daily": 24 * time.Hour, "weekly": 7 * 24 * time.Hour,
	"monthly": 30 * 24 * time.Hour, "yearly": 365 * 24 * time.Hour,
}

// syndication is the wait the syndication module asks for: Frequency
// updates per Period, on slots counted from Base when the feed gives one
// (the next poll then goes to the first slot past the floor). note is set
// instead when the declaration cannot be used.
func syndication(now time.Time, cfg Config, f FeedHints) (d time.Duration, text, note string) {
	period, ok := syPeriods[f.SyPeriod]
	if !ok {
		return 0, "", "sy:updatePeriod " + strconv.Quote(f.SyPeriod) + " unknown, ignored"
	}
	if f.SyFrequency <= 0 {
		return 0, "", "sy:updateFrequency " + strconv.FormatInt(f.SyFrequency, 10) + " ignored"
	}
	d = period / time.Duration(min(f.SyFrequency, int64(period)))
	text = "syndication " + strconv.FormatInt(f.SyFrequency, 10) + "/" + f.SyPeriod
	if d < cfg.Floor || f.SyBase.IsZero() || absDur(now.Sub(f.SyBase)) > 100*365*24*time.Hour {
		return d, text, ""
	}
	// The first slot Base + k·d that is at least the floor away.
	k := now.Add(cfg.Floor).Sub(f.SyBase) / d
	slot := f.SyBase.Add(k * d)
	for slot.Before(now.Add(cfg.Floor)) {
		slot = slot.Add(d)
	}
	return slot.Sub(now), text + ", next slot " + fmtClock(slot, now), ""
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// skips are the hours and days (GMT bit masks) a feed asked not to be
// read in, as the policy honours them.
type skips struct {
	hours uint32
	days  uint8
}

// skipsOf reads a feed's skipHours and skipDays. A declaration that skips
// every hour or every day would stop the source: it is ignored, and
// noted.
func skipsOf(f FeedHints) (skips, []string) {
	var notes []string
	sk := skips{hours: f.SkipHours, days: f.SkipDays}
	if sk.hours == 1<<24-1 {
		notes = append(notes, "skipHours covers all 24 hours, ignored")
		sk.hours = 0
	}
	if sk.days == 1<<7-1 {
		notes = append(notes, "skipDays covers all 7 days, ignored")
		sk.days = 0
	}
	return sk, notes
}

// skipped says whether t falls in a skipped hour, or on a skipped day.
func (sk skips) skipped(t time.Time) (hour, day bool) {
	u := t.UTC()
	return sk.hours&(1<<u.Hour()) != 0, sk.days&(1<<u.Weekday()) != 0
}

func (sk skips) open(t time.Time) bool {
	h, d := sk.skipped(t)
	return !h && !d
}

// which names the declaration that makes t skipped.
func (sk skips) which(t time.Time) string {
	if _, d := sk.skipped(t); d {
		return "skipDays"
	}
	return "skipHours"
}

// next moves at out of the skipped hours and days, to the start of the
// first hour that is read again. moved is false when at was not skipped.
func (sk skips) next(now, at time.Time) (next time.Time, text string, moved bool) {
	if sk.open(at) {
		return at, "", false
	}
	which := sk.which(at)
	t := at.UTC().Truncate(time.Hour)
	for range 8 * 24 {
		t = t.Add(time.Hour)
		if sk.open(t) {
			break
		}
	}
	return t, which + " until " + fmtClock(t, now), true
}

// skipLead is how long before skipped hours begin a poll is placed when
// it must come before them: the tick that starts it and the poll itself
// take a little while, and must end before the feed asked not to be read.
const skipLead = 5 * time.Minute

// lastOpen is the latest moment in [earliest, limit] at which the feed may
// be read. When limit itself is open it is limit, and from is zero;
// otherwise it is skipLead before from, the start of the skipped hours
// that limit lies in. ok is false when no moment in the range is open.
func (sk skips) lastOpen(earliest, limit time.Time) (at, from time.Time, ok bool) {
	if sk.open(limit) {
		return limit, time.Time{}, true
	}
	from = limit.UTC().Truncate(time.Hour)
	for from.After(earliest) {
		if sk.open(from.Add(-time.Hour)) {
			if at = from.Add(-skipLead); !at.Before(earliest) {
				return at, from, true
			}
			return time.Time{}, time.Time{}, false
		}
		from = from.Add(-time.Hour)
	}
	return time.Time{}, time.Time{}, false
}
