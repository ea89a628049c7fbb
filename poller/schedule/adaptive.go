package schedule

import (
	"math"
	"strconv"
	"time"
)

// densityStep is the longest stretch over which the poll density is
// taken as constant: the rhythm changes by the hour and a burst fades
// over hours.
const densityStep = 15 * time.Minute

// adaptive is the plain adaptive decision: where the next poll goes by
// the estimate alone, before hints.
//
// For a steady rate λ the interval is √(Target² + 2·Balance/λ): the one
// that minimises requests plus the waiting of items beyond Target, each
// Balance of such waiting weighing one request. An active source is
// polled about every Target, a quiet one along the square-root rule
// √(2·Balance·gap). With a rhythm or a fading burst the rate changes along
// the way, so the poll density (the inverse interval) is added up from
// now until one poll's worth has accumulated.
func adaptive(now time.Time, cfg Config, s State) (time.Time, string) {
	if s.Fresh() {
		d := min(max(cfg.Base, cfg.Floor), cfg.Ceiling)
		return now.Add(d), "adaptive: no history yet → " + fmtDur(d)
	}
	minD, maxD := 1/cfg.Ceiling.Hours(), 1/cfg.Floor.Hours()
	capHours, capWhy := s.caps(cfg, now)
	density := func(t time.Time) float64 {
		return min(max(1/steadyInterval(cfg, s.rateAt(t), s.Listed), 1/capHours, minD), maxD)
	}
	limit := now.Add(cfg.Ceiling)
	at := limit
	var acc float64
	for t := now; t.Before(limit); {
		end := earliest(t.Truncate(time.Hour).Add(time.Hour), t.Add(densityStep), limit)
		d := density(t.Add(end.Sub(t) / 2))
		seg := end.Sub(t).Hours()
		if acc+d*seg >= 1 {
			at = t.Add(time.Duration((1 - acc) / d * float64(time.Hour)))
			break
		}
		acc += d * seg
		t = end
	}
	return at, adaptiveReason(now, cfg, s, at.Sub(now), capHours, capWhy)
}

// Caps on the adaptive interval.
const (
	// peakGuard is the share of the feed's listed items the fastest burst
	// seen may replace between two polls.
	peakGuard = 0.75
	// gapCap is how many typical gaps (at the long rate) an item may wait
	// at most, before jitter.
	gapCap = 2.0
)

// caps is the longest the adaptive interval may be, in hours, whatever
// the rate of the moment says, and why: short enough that a burst like
// the fastest the source has shown cannot push unseen items out of its
// feed (never below twice the floor: a burst that fast is only caught by
// pushes), and that no item waits more than two typical gaps.
func (s State) caps(cfg Config, now time.Time) (float64, string) {
	limit, why := math.Inf(1), ""
	if peak := s.Peak * decay(now.Sub(s.Updated), peakHalfLife); peak > 0 && s.Listed >= 2 {
		limit = max(peakGuard*float64(s.Listed)/peak, 2*cfg.Floor.Hours())
		why = "bursts up to ~" + twoDigits(peak) + " new/h"
	}
	if long := s.longRate(); long > 0 {
		if g := gapCap / (1 + cfg.Jitter) / long; g < limit {
			limit, why = g, "within 2 gaps"
		}
	}
	return limit, why
}

// adaptiveReason says which part of the estimate set the interval.
func adaptiveReason(now time.Time, cfg Config, s State, interval time.Duration, capHours float64, capWhy string) string {
	long := s.longRate()
	if burst := s.Burst * decay(now.Sub(s.Updated), burstHalfLife); burst > long*s.rhythm(now) {
		return "adaptive: burst ~" + twoDigits(burst) + " new/h → " + fmtDur(interval)
	}
	why := fmtRate(long)
	if quiet := now.Sub(s.LastNew); !s.LastNew.IsZero() && quiet >= 48*time.Hour {
		why = "quiet " + strconv.Itoa(int(quiet/(24*time.Hour))) + "d, " + why
	}
	flatHours := min(steadyInterval(cfg, long, s.Listed), capHours)
	flat := time.Duration(min(max(flatHours, cfg.Floor.Hours()), cfg.Ceiling.Hours()) * float64(time.Hour))
	switch {
	case float64(interval) > 1.3*float64(flat):
		why += ", quiet hours"
	case float64(interval) < float64(flat)/1.3:
		why += ", busy hours"
	case capHours < steadyInterval(cfg, long, s.Listed) && float64(interval) <= 1.05*capHours*float64(time.Hour):
		why += ", " + capWhy
	}
	return "adaptive: " + why + " → " + fmtDur(interval)
}

func earliest(first time.Time, rest ...time.Time) time.Time {
	for _, t := range rest {
		if t.Before(first) {
			first = t
		}
	}
	return first
}

// steadyInterval is the adaptive interval, in hours, for a steady rate
// (items an hour), and no longer than it takes half of the listed items
// of a feed to be replaced.
func steadyInterval(cfg Config, rate float64, listed int) float64 {
	if rate <= 0 {
		return math.Inf(1)
	}
	target := cfg.Target.Hours()
	d := math.Sqrt(target*target + 2*cfg.Balance.Hours()/rate)
	if listed >= 2 {
		d = min(d, rollOver(rate, listed))
	}
	return d
}

// rollOverAt is how long half of the feed's listed items last at the
// source's long rate, 0 when unknown.
func (s State) rollOverAt() time.Duration {
	if long := s.longRate(); s.Listed >= 2 && long > 0 {
		return time.Duration(min(rollOver(long, s.Listed), 1e5) * float64(time.Hour))
	}
	return 0
}

// rollOver is how long, in hours, half of a feed's listed items last at
// a rate.
func rollOver(rate float64, listed int) float64 {
	return float64(listed) / 2 / rate
}
