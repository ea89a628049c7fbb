package schedsim

import (
	"math"
	"sort"
	"time"
)

// EntryFrequency is Miniflux's entry-frequency scheduler as its source
// documents it (model.Feed.ScheduleNextCheck, storage.WeeklyFeedEntryCount,
// defaults: factor 1, min 5 minutes, max 24 hours):
//
//	weekly   = ⌈1 week ÷ mean gap between the entries published in the last week⌉ (0 for fewer than 2)
//	interval = 1 week ÷ weekly, within [5m, 24h]; 24h when weekly is 0
//	after a 200: max(interval, ttl, Cache-Control max-age, Expires), at most 24h
//
// A 304 uses the interval alone. Its scheduler job wakes every polling
// frequency (60 minutes by default); that delay is left out here, in its
// favour.
func EntryFrequency() Policy {
	return Policy{Name: "entry frequency", New: func(*Source, uint64) Scheduler { return &entryFrequency{} }}
}

type entryFrequency struct {
	published []time.Time // stored entries' publish times, ascending
}

const week = 7 * 24 * time.Hour

func (e *entryFrequency) Next(now time.Time, p Poll) time.Time {
	for _, t := range p.Obs.Published {
		e.add(t)
	}
	interval := 24 * time.Hour
	if weekly := e.weekly(now); weekly > 0 {
		interval = min(max(week/time.Duration(weekly), 5*time.Minute), 24*time.Hour)
	}
	if p.Obs.Hints.FeedRead {
		refresh := p.MaxAge
		if ttl := p.Obs.Hints.TTL; ttl != nil {
			refresh = max(refresh, *ttl)
		}
		if !p.Obs.Hints.Expires.IsZero() {
			refresh = max(refresh, p.Obs.Hints.Expires.Sub(now))
		}
		interval = min(max(interval, refresh), 24*time.Hour)
	}
	return now.Add(interval)
}

func (e *entryFrequency) Push(time.Time, time.Time) {}

func (e *entryFrequency) add(t time.Time) {
	i := sort.Search(len(e.published), func(i int) bool { return e.published[i].After(t) })
	e.published = append(e.published, time.Time{})
	copy(e.published[i+1:], e.published[i:])
	e.published[i] = t
}

// weekly is WeeklyFeedEntryCount's SQL in Go.
func (e *entryFrequency) weekly(now time.Time) int {
	cut := now.Add(-week)
	i := sort.Search(len(e.published), func(i int) bool { return !e.published[i].Before(cut) })
	recent := e.published[i:]
	if len(recent) < 2 {
		return 0
	}
	gap := recent[len(recent)-1].Sub(recent[0]).Seconds() / float64(len(recent)-1)
	if gap == 0 {
		return 0
	}
	return int(math.Ceil(week.Seconds() / gap))
}
