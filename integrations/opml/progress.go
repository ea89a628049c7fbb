package opml

import (
	"fmt"
	"time"
)

// Progress is the state of an import, for a counter or a bar.
type Progress struct {
	// Done of Total outlines are decided (added, duplicate, rejected or
	// skipped); duplicates and rejections found before any creation are
	// done from the start.
	Done, Total int
	Added       int
	Duplicates  int
	Rejected    int
	Skipped     int
	Elapsed     time.Duration
	// Rate is creations decided per second so far (0 before the first).
	Rate float64
	// ETA is the time the remaining creations take at Rate (0: unknown).
	ETA time.Duration
}

// String renders the progress as one line, e.g.
// "120/500 (added 97, duplicate 20, rejected 3) 4.1/s, ETA 1m33s".
func (p Progress) String() string {
	s := fmt.Sprintf("%d/%d (added %d, duplicate %d, rejected %d", p.Done, p.Total, p.Added, p.Duplicates, p.Rejected)
	if p.Skipped > 0 {
		s += fmt.Sprintf(", skipped %d", p.Skipped)
	}
	s += ")"
	if p.Rate > 0 {
		s += fmt.Sprintf(" %.1f/s", p.Rate)
	}
	if p.ETA > 0 {
		s += ", ETA " + p.ETA.Round(time.Second).String()
	}
	return s
}

// progress computes Progress; rate and ETA count creations only, since
// decisions without one take no time.
type progress struct {
	clock    Clock
	start    time.Time
	total    int
	creating int // decided without a creation at the start: total - tasks
}

func newProgress(c Clock, total, tasks int) *progress {
	return &progress{clock: c, start: c.Now(), total: total, creating: tasks}
}

func (p *progress) at(r Report) Progress {
	done := r.Added + r.Duplicates + r.Rejected + r.Skipped
	out := Progress{Done: done, Total: p.total, Added: r.Added, Duplicates: r.Duplicates, Rejected: r.Rejected,
		Skipped: r.Skipped, Elapsed: p.clock.Now().Sub(p.start)}
	created := done - (p.total - p.creating) // creations decided so far
	if created > 0 && out.Elapsed > 0 {
		out.Rate = float64(created) / out.Elapsed.Seconds()
		remaining := p.total - done
		out.ETA = time.Duration(float64(remaining) / out.Rate * float64(time.Second))
	}
	return out
}
