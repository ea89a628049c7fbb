package rank

import (
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Freshness is the multiplier 1 − days/365 × rate for an article last
// updated at updated, seen from now: 1 for an article of now (or dated
// in the future), falling linearly, never below 0.
func Freshness(class model.DecayClass, updated, now time.Time) float64 {
	days := now.Sub(updated).Hours() / 24
	if days <= 0 {
		return 1
	}
	return max(0, 1-days/365*class.Rate())
}
