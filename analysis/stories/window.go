package stories

import (
	"errors"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// DefaultWindow is how long a story takes new articles: an article is
// compared only with articles reported at most this long before it. News
// is re-reported within days; the window also bounds what the index must
// hold, whatever the size of the archive.
const DefaultWindow = 7 * 24 * time.Hour

// LeadWords is how many opening words of the body form the lead, which a
// profile weighs up: what a truncated feed copy keeps of an article.
const LeadWords = 40

// ErrOptions reports options out of range.
var ErrOptions = errors.New("invalid story options")

// withinWindow reports whether a and b lie at most window apart.
func withinWindow(a, b time.Time, window time.Duration) bool {
	d := a.Sub(b)
	if d < 0 {
		d = -d
	}
	return d <= window
}

// ReportedAt is the time an article counts as reported: its publication
// time when it has one that is not later than when it was stored (feeds
// sometimes date items in the future), else when it was stored.
func ReportedAt(published *time.Time, stored time.Time) time.Time {
	return model.ReportedAt(published, stored)
}

// mix64 is SplitMix64's finaliser: it spreads a word's hash over every
// bit, so that term hashes cut to fewer bits stay well distributed.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// survivor follows a chain of merges (each id to the story it was merged
// into) to the story that holds id's articles now.
func survivor[K comparable](into map[K]K, id K) K {
	for {
		n, ok := into[id]
		if !ok {
			return id
		}
		id = n
	}
}
