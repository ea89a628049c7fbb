package schedule

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// stateVersion is the version of State's stored form. An older version
// is read as far as it goes; a newer or unreadable one starts afresh.
const stateVersion = 1

// State is what the policy keeps about a source between polls: a few
// decayed sums, not its history, so updating it costs the same at every
// poll. Its zero value is a source never polled. Store it with
// MarshalText in one text column; UnmarshalText never leaves a state
// that stops polling.
type State struct {
	// Updated is when the estimate last took in an observation.
	Updated time.Time
	// Count and Exposure are the new items seen and the hours watched,
	// each decayed with the long half-life: Count/Exposure is the rate.
	Count, Exposure float64
	// Burst is the short-term rate (items an hour) at Updated, decaying
	// with the short half-life: a poll that finds a run of items sets it.
	Burst float64
	// Peak is the fastest burst seen (items an hour) at Updated, decaying
	// with the peak half-life: while the source may burst like that again,
	// it is polled often enough that such a burst cannot push items out of
	// the feed unseen.
	Peak float64
	// Hours and Days are the items seen by UTC hour of day and weekday,
	// decayed with the rhythm half-life: the source's rhythm.
	Hours [24]float64
	Days  [7]float64
	// LastNew is the newest new item's publish time (or, without one,
	// when it was found).
	LastNew time.Time
	// Listed is how many items the feed listed at its last fetch.
	Listed int
	// Feed holds the feed's declared hints from the last body read: a 304
	// has none of its own.
	Feed FeedHints
}

// FeedHints are the hints a feed declares in its body, kept between
// polls.
type FeedHints struct {
	// TTL is <ttl> when HasTTL.
	TTL    time.Duration
	HasTTL bool
	// SkipHours has bit h set for each skipped GMT hour h; SkipDays bit d
	// for each skipped weekday d (Sunday = 0).
	SkipHours uint32
	SkipDays  uint8
	// SyPeriod, SyFrequency and SyBase are the syndication module's
	// declaration; SyPeriod is empty when there is none.
	SyPeriod    string
	SyFrequency int64
	SyBase      time.Time
}

// Fresh reports whether the state has never taken in a poll.
func (s State) Fresh() bool { return s.Updated.IsZero() }

// wireState is State's stored form: short keys, Unix seconds, rates with
// four significant digits. About 300 bytes.
type wireState struct {
	V        int        `json:"v"`
	Updated  int64      `json:"u,omitempty"`
	Count    num        `json:"n,omitempty"`
	Exposure num        `json:"e,omitempty"`
	Burst    num        `json:"b,omitempty"`
	Peak     num        `json:"p,omitempty"`
	Hours    []num      `json:"h,omitempty"`
	Days     []num      `json:"d,omitempty"`
	LastNew  int64      `json:"l,omitempty"`
	Listed   int        `json:"k,omitempty"`
	Feed     *wireHints `json:"f,omitempty"`
}

type wireHints struct {
	TTL         *int64 `json:"ttl,omitempty"` // seconds
	SkipHours   uint32 `json:"sh,omitempty"`
	SkipDays    uint8  `json:"sd,omitempty"`
	SyPeriod    string `json:"syp,omitempty"`
	SyFrequency int64  `json:"syf,omitempty"`
	SyBase      int64  `json:"syb,omitempty"`
}

// num is a float stored with four significant digits: the estimate is
// no more precise than that.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(n), 'g', 4, 64), nil
}

// MarshalText stores the state (JSON, versioned).
func (s State) MarshalText() ([]byte, error) {
	w := wireState{V: stateVersion, Count: num(s.Count), Exposure: num(s.Exposure), Burst: num(s.Burst),
		Peak: num(s.Peak), Listed: s.Listed}
	if !s.Updated.IsZero() {
		w.Updated = s.Updated.Unix()
	}
	if !s.LastNew.IsZero() {
		w.LastNew = s.LastNew.Unix()
	}
	if s.Hours != ([24]float64{}) {
		w.Hours = nums(s.Hours[:])
	}
	if s.Days != ([7]float64{}) {
		w.Days = nums(s.Days[:])
	}
	if f := s.Feed; f != (FeedHints{}) {
		wh := &wireHints{SkipHours: f.SkipHours, SkipDays: f.SkipDays, SyPeriod: f.SyPeriod, SyFrequency: f.SyFrequency}
		if f.HasTTL {
			secs := int64(f.TTL / time.Second)
			wh.TTL = &secs
		}
		if !f.SyBase.IsZero() {
			wh.SyBase = f.SyBase.Unix()
		}
		w.Feed = wh
	}
	return json.Marshal(w)
}

// UnmarshalText reads a stored state. Empty text is a fresh state. Text
// that cannot be read (corrupt, or written by a newer version) also
// leaves a fresh state, and the error says why, for a log line: the
// source is polled on as if it were new, never stopped.
func (s *State) UnmarshalText(text []byte) error {
	*s = State{}
	if len(text) == 0 {
		return nil
	}
	var w wireState
	if err := json.Unmarshal(text, &w); err != nil {
		return fmt.Errorf("schedule state unreadable, starting afresh: %w", err)
	}
	if w.V != stateVersion {
		return fmt.Errorf("schedule state version %d unknown, starting afresh", w.V)
	}
	got := State{Count: float64(w.Count), Exposure: float64(w.Exposure), Burst: float64(w.Burst),
		Peak: float64(w.Peak), Listed: min(max(w.Listed, 0), 1<<16)}
	if w.Updated != 0 {
		got.Updated = time.Unix(w.Updated, 0).UTC()
	}
	if w.LastNew != 0 {
		got.LastNew = time.Unix(w.LastNew, 0).UTC()
	}
	if len(w.Hours) == 24 {
		for i, v := range w.Hours {
			got.Hours[i] = float64(v)
		}
	}
	if len(w.Days) == 7 {
		for i, v := range w.Days {
			got.Days[i] = float64(v)
		}
	}
	if f := w.Feed; f != nil {
		got.Feed = FeedHints{SkipHours: f.SkipHours & (1<<24 - 1), SkipDays: f.SkipDays & (1<<7 - 1),
			SyPeriod: f.SyPeriod, SyFrequency: f.SyFrequency}
		if f.TTL != nil && *f.TTL >= 0 {
			got.Feed.HasTTL = true
			got.Feed.TTL = time.Duration(min(*f.TTL, math.MaxInt64/int64(time.Second))) * time.Second
		}
		if f.SyBase != 0 {
			got.Feed.SyBase = time.Unix(f.SyBase, 0).UTC()
		}
	}
	if !got.sane() {
		return fmt.Errorf("schedule state out of range, starting afresh")
	}
	*s = got
	return nil
}

// sane reports whether every number is one the estimate can work with.
func (s State) sane() bool {
	ok := func(v float64) bool { return v >= 0 && !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !ok(s.Count) || !ok(s.Exposure) || !ok(s.Burst) || !ok(s.Peak) {
		return false
	}
	for _, v := range s.Hours {
		if !ok(v) {
			return false
		}
	}
	for _, v := range s.Days {
		if !ok(v) {
			return false
		}
	}
	return true
}

func nums(vs []float64) []num {
	out := make([]num, len(vs))
	for i, v := range vs {
		out[i] = num(v)
	}
	return out
}
