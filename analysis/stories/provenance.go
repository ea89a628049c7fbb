package stories

import (
	"cmp"
	"slices"
	"time"
)

// Member is one article of a story, as provenance needs it.
type Member struct {
	ArticleID int64
	// Source identifies who reported it: the feed source id, or 0 when
	// the source is gone.
	SourceID int64
	// At is when it was reported (see ReportedAt).
	At time.Time
}

// Report is one member in provenance order.
type Report struct {
	Member
	// Lag is how long after the first report this one came (0 for the
	// first).
	Lag time.Duration
	// First marks the first report of the story.
	First bool
}

// Provenance orders a story's members by when they were reported and
// gives each one's lag behind the first. Ties go to the lower article id,
// so the first reporter is stable however the members were loaded.
func Provenance(members []Member) []Report {
	ms := slices.Clone(members)
	slices.SortFunc(ms, func(a, b Member) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.ArticleID, b.ArticleID)
	})
	out := make([]Report, len(ms))
	for i, m := range ms {
		out[i] = Report{Member: m, Lag: m.At.Sub(ms[0].At), First: i == 0}
	}
	return out
}
