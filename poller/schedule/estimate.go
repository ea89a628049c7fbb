package schedule

import (
	"math"
	"slices"
	"time"
)

// The estimate's time constants. docs/scheduling.md says why these.
const (
	// halfLife is how fast the publishing rate forgets: a source that
	// stops publishing sees its rate halve every halfLife, so its polls
	// thin out by √2 over the same time.
	halfLife = 3 * 24 * time.Hour
	// rhythmHalfLife is how fast the hour-of-day and weekday profile
	// forgets: a rhythm needs weeks to show.
	rhythmHalfLife = 14 * 24 * time.Hour
	// burstHalfLife is how fast a burst's extra polling fades.
	burstHalfLife = 2 * time.Hour
	// peakHalfLife is how long a source's fastest burst is remembered: a
	// source that burst is expected to burst again within days.
	peakHalfLife = 7 * 24 * time.Hour
	// burstMinItems is how many dated items one poll must find for their
	// spacing to count as a burst rate; peakMinItems for it to set the
	// peak. Fewer are chance clustering of a steady source.
	burstMinItems = 3
	peakMinItems  = 4
	// burstFactor and peakFactor are how far above the long rate a run of
	// items must be to count as a burst, and to set the peak.
	burstFactor = 2.0
	peakFactor  = 3.0
	// priorHours is how much a new source's starting rate (its Base
	// interval) weighs against what its first polls show.
	priorHours = 6.0
	// minHistory is the shortest span a first poll's item dates are read
	// over, so that a feed whose items all carry one date does not look
	// infinitely fast.
	minHistory = 6 * time.Hour
	// maxHistory is the longest: older items say little about today.
	maxHistory = 4 * halfLife
	// wakeMemory is how much of a long silence is remembered once the
	// source publishes again.
	wakeMemory = 24 * time.Hour
	// wakeGaps is how many expected gaps of silence make a new item a
	// wake-up rather than chance.
	wakeGaps = 4.0
	// rhythmPrior is the pseudo-count of every hour and weekday bucket,
	// so that a few items do not draw a rhythm.
	rhythmPrior = 2.0
)

// decay is the weight left after age with the given half-life.
func decay(age, half time.Duration) float64 {
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(half))
}

// watched is the decayed exposure, in hours, of an interval of length
// span that ended now.
func watched(span time.Duration) float64 {
	h := halfLife.Hours() / math.Ln2
	return h * (1 - decay(span, halfLife))
}

// learn takes what a poll (or a push) found into the estimate.
func learn(now time.Time, cfg Config, s State, o Observation) State {
	switch o.Outcome {
	case Fetched, NotModified, Pushed:
	default:
		return s // a failed or deferred poll saw nothing of the source
	}
	if o.Outcome == Fetched && o.Hints.FeedRead {
		s.Feed = feedHintsOf(o)
	}
	if o.Outcome == Fetched && o.Listed > 0 {
		s.Listed = min(o.Listed, 1<<16)
	}
	if s.Fresh() {
		return first(now, cfg, s, o)
	}
	if now.Before(s.Updated) {
		now = s.Updated // the clock went back: nothing has passed
	}
	since := now.Sub(s.Updated)
	s = s.aged(now)
	s.Exposure += watched(since)
	times := itemTimes(o, s.Updated, now)
	if len(times) > 0 && s.woke(slices.MinFunc(times, time.Time.Compare)) {
		// A long silence has ended: it says little about what follows, so
		// it stops weighing more than wakeMemory of watching.
		k := min(1, wakeMemory.Hours()/s.Exposure)
		s.Count *= k
		s.Exposure *= k
	}
	from := s.Updated
	s.Updated = now
	s = s.counted(now, times)
	r, newest, span, n := burstOf(o, from, now, cfg.Floor)
	long := s.longRate()
	if n > 0 && r > burstFactor*long {
		// Honest about when: a run that ended an hour ago has faded by an
		// hour's worth already.
		s.Burst = max(s.Burst, r*decay(now.Sub(newest), burstHalfLife))
	}
	// A run that filled half the feed, spread over minutes (a batch
	// published at once is not a rate: no polling catches it sooner), is
	// a burst that could overflow the feed when it comes again.
	if n >= max(peakMinItems, s.Listed/2) && span >= cfg.Floor && r > peakFactor*long {
		s.Peak = max(s.Peak, r)
	}
	return s
}

// burstOf is the rate a poll's run of new items shows, items an hour.
// With dated items published since the previous poll (from): their count
// less one over their own span (at least minSpan), the newest of them and
// that span. Without dates: the items over the time since the previous
// poll (a lower bound), the newest being now. n is how many items the
// rate rests on, 0 when fewer than burstMinItems. Backdated items say
// nothing of when they appeared and are left out.
func burstOf(o Observation, from, now time.Time, minSpan time.Duration) (rate float64, newest time.Time, span time.Duration, n int) {
	var dated []time.Time
	undated := 0
	for i := range o.NewItems {
		switch {
		case i >= len(o.Published) || o.Published[i].IsZero():
			undated++
		case o.Published[i].After(from) && !o.Published[i].After(now):
			dated = append(dated, o.Published[i])
		}
	}
	if len(dated) >= burstMinItems {
		oldest, latest := slices.MinFunc(dated, time.Time.Compare), slices.MaxFunc(dated, time.Time.Compare)
		span = latest.Sub(oldest)
		return float64(len(dated)-1) / max(span, minSpan).Hours(), latest, span, len(dated)
	}
	if undated >= burstMinItems && undated == o.NewItems && now.After(from) {
		span = now.Sub(from)
		return float64(undated) / max(span, minSpan).Hours(), now, span, undated
	}
	return 0, time.Time{}, 0, 0
}

// first starts the estimate from a source's first poll: the items a feed
// lists at once, with their dates, are its recent history, read back to
// the oldest item or maxHistory, whichever is nearer (a feed whose newest
// item is months old has been silent all that window). The Base interval
// is a prior of priorHours, placed before that history.
func first(now time.Time, cfg Config, s State, o Observation) State {
	var dated []time.Time
	for i, t := range o.Published {
		if i < o.NewItems && !t.IsZero() && !t.After(now) {
			dated = append(dated, t)
		}
	}
	slices.SortFunc(dated, time.Time.Compare)
	span := minHistory
	if len(dated) > 0 {
		span = min(max(span, now.Sub(dated[0])), maxHistory)
		s.LastNew = dated[len(dated)-1]
	}
	prior := priorRate(cfg)
	s.Updated = now
	if len(dated) == 0 {
		// No dates, or no items: nothing is known yet but the prior.
		s.Exposure, s.Count = priorHours, prior*priorHours
		return s
	}
	s.Exposure = watched(span) + priorHours*decay(span, halfLife)
	s.Count = prior * priorHours * decay(span, halfLife)
	// When the oldest item marks where the window starts, the others are
	// what came after it. Items older than the window are not counted.
	startsAtOldest := len(dated) > 0 && span == now.Sub(dated[0])
	cut := now.Add(-span)
	var counted []time.Time
	for i, t := range dated {
		if t.After(cut) && !(i == 0 && startsAtOldest) {
			counted = append(counted, t)
		}
	}
	return s.counted(now, counted)
}

// priorRate is the rate, items an hour, at which the adaptive rule polls
// every Base: what a new source is assumed to publish. A Base under twice
// the Target is read as twice the Target: near the Target the rule's rate
// grows without bound, and a prior must stay modest.
func priorRate(cfg Config) float64 {
	b, t := max(cfg.Base.Hours(), 2*cfg.Target.Hours()), cfg.Target.Hours()
	return 2 * cfg.Balance.Hours() / (b*b - t*t)
}

// itemTimes are when the new items appeared, kept inside the window the
// poll covers (from, now]: an item dated earlier was not there at the
// last poll (it was backdated), one dated later has a wrong clock. Items
// without a date are placed in the middle of the window.
func itemTimes(o Observation, from, now time.Time) []time.Time {
	out := make([]time.Time, 0, o.NewItems)
	mid := from.Add(now.Sub(from) / 2)
	for i := 0; i < o.NewItems; i++ {
		t := mid
		if i < len(o.Published) && !o.Published[i].IsZero() {
			t = o.Published[i]
			if t.Before(from) {
				t = from
			}
			if t.After(now) {
				t = now
			}
		}
		out = append(out, t)
	}
	return out
}

// aged decays every sum from Updated to now (Updated is left for the
// caller to move).
func (s State) aged(now time.Time) State {
	age := now.Sub(s.Updated)
	k := decay(age, halfLife)
	s.Count *= k
	s.Exposure *= k
	s.Burst *= decay(age, burstHalfLife)
	s.Peak *= decay(age, peakHalfLife)
	r := decay(age, rhythmHalfLife)
	for i := range s.Hours {
		s.Hours[i] *= r
	}
	for i := range s.Days {
		s.Days[i] *= r
	}
	return s
}

// counted adds items that appeared at times into the sums, each weighted
// by its age at now.
func (s State) counted(now time.Time, times []time.Time) State {
	for _, t := range times {
		s.Count += decay(now.Sub(t), halfLife)
		w := decay(now.Sub(t), rhythmHalfLife)
		u := t.UTC()
		s.Hours[u.Hour()] += w
		s.Days[u.Weekday()] += w
		if t.After(s.LastNew) {
			s.LastNew = t
		}
	}
	return s
}

// woke reports whether an item at t ends a silence of more than a day
// that was either longer than wakeGaps expected gaps or long enough for
// the source to look dead (under a quarter of an item a day).
func (s State) woke(t time.Time) bool {
	silence := t.Sub(s.LastNew)
	if s.LastNew.IsZero() || silence < wakeMemory {
		return false
	}
	rate := s.longRate()
	return silence.Hours()*rate > wakeGaps || rate*wakeMemory.Hours() < 0.25
}

// longRate is the decayed publishing rate, items an hour.
func (s State) longRate() float64 {
	if s.Exposure <= 0 {
		return 0
	}
	return s.Count / s.Exposure
}

// rhythm is how busy the hour containing t is against the source's
// average: 1 without a rhythm, above 1 in its busy hours.
func (s State) rhythm(t time.Time) float64 {
	u := t.UTC()
	return factor(s.Hours[:], u.Hour()) * factor(s.Days[:], int(u.Weekday()))
}

// factor is bucket i's share against the mean, each bucket with
// rhythmPrior pseudo-items so that sparse data stays close to flat.
func factor(buckets []float64, i int) float64 {
	var sum float64
	for _, v := range buckets {
		sum += v
	}
	mean := sum / float64(len(buckets))
	return (buckets[i] + rhythmPrior) / (mean + rhythmPrior)
}

// rateAt is the expected rate at t ≥ Updated, items an hour: the long
// rate shaped by the rhythm, or the fading burst when that is higher.
func (s State) rateAt(t time.Time) float64 {
	r := s.longRate() * s.rhythm(t)
	if s.Burst > 0 {
		r = max(r, s.Burst*decay(t.Sub(s.Updated), burstHalfLife))
	}
	return r
}

// feedHintsOf keeps the feed-declared part of a poll's hints.
func feedHintsOf(o Observation) FeedHints {
	h := o.Hints
	var f FeedHints
	if h.TTL != nil {
		f.TTL, f.HasTTL = max(*h.TTL, 0), true
	}
	for _, hr := range h.SkipHours {
		if hr >= 0 && hr < 24 {
			f.SkipHours |= 1 << hr
		}
	}
	for _, d := range h.SkipDays {
		if d >= time.Sunday && d <= time.Saturday {
			f.SkipDays |= 1 << d
		}
	}
	if sy := h.Syndication; sy != nil {
		f.SyPeriod, f.SyFrequency, f.SyBase = sy.Period, sy.Frequency, sy.Base
		if f.SyPeriod == "" {
			f.SyPeriod = "daily"
		}
	}
	return f
}
