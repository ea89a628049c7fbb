package schedsim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// hinted is a steady source that declares something: a ttl, skipHours
// (and publishes nothing in them), WordPress's "hourly" syndication
// module, a CDN's Cache-Control max-age, or an absurd value.
func hinted(rng *rand.Rand, s *Source, w Window) []time.Time {
	perDay := logUniform(rng, 1, 30)
	r := flat(perDay)
	switch p := rng.Float64(); {
	case p < 0.30:
		s.Class = "hinted: ttl"
		s.Hints.TTL = dur([]time.Duration{30, 60, 120}[rng.IntN(3)] * time.Minute)
	case p < 0.55:
		s.Class = "hinted: skipHours"
		start, n := []int{20, 21, 22, 23, 0}[rng.IntN(5)], 6+rng.IntN(3)
		skipped := map[int]bool{}
		for i := range n {
			h := (start + i) % 24
			skipped[h] = true
			s.Hints.SkipHours = append(s.Hints.SkipHours, h)
		}
		scale := 24 / float64(24-n)
		r = func(t time.Time) float64 {
			if skipped[t.UTC().Hour()] {
				return 0
			}
			return perDay * scale
		}
	case p < 0.75:
		s.Class = "hinted: sy hourly"
		s.Hints.Syndication = &sources.Syndication{Period: "hourly", Frequency: 1}
	case p < 0.90:
		s.Class = "hinted: cdn max-age"
		s.MaxAge = []time.Duration{5, 10, 15, 30}[rng.IntN(4)] * time.Minute
	default:
		s.Class = "hinted: absurd"
		switch rng.IntN(5) {
		case 0:
			s.Hints.TTL = dur(0)
		case 1:
			s.Hints.TTL = dur(math.MaxInt64)
		case 2:
			for h := range 24 {
				s.Hints.SkipHours = append(s.Hints.SkipHours, h)
			}
		case 3:
			s.MaxAge = 365 * day
		case 4:
			s.Hints.Syndication = &sources.Syndication{Period: "hourly", Frequency: 0}
		}
	}
	s.Intensity = r
	return poisson(rng, w.History, w.RunOut, r)
}

func dur(d time.Duration) *time.Duration { return &d }
