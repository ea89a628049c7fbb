package opml

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Defaults for the zero values of ImportOptions.
const (
	DefaultConcurrency = 4
	DefaultHostGap     = time.Second
)

// Clock is the time Import schedules by; tests give it a fake one.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// ImportOptions configure Import.
type ImportOptions struct {
	// WebPages turns outlines with only an htmlUrl into web sources;
	// without it they are rejected with a reason that says so.
	WebPages bool
	// Concurrency bounds the creations (validation fetches) in flight in
	// total (default 4). Per host, one runs at a time whatever it is.
	Concurrency int
	// HostGap is the least time between the starts of two creations on
	// one host (default 1s; negative: none).
	HostGap time.Duration
	// Existing are the URLs of the workspace's sources: outlines with one
	// of them are duplicates without a creation (and its fetch).
	Existing []string
	// Key maps a URL to what duplicates are found by (default DedupKey);
	// give it the source service's URL normalisation.
	Key func(rawURL string) string
	// Progress, when set, is called after each outline is decided, never
	// concurrently.
	Progress func(Progress)
	// Clock defaults to the wall clock.
	Clock Clock
}

// Report is what Import did, one Outcome per outline in list order.
type Report struct {
	Outcomes   []Outcome `json:"outcomes"`
	Added      int       `json:"added"`
	Duplicates int       `json:"duplicates"`
	Rejected   int       `json:"rejected"`
	Skipped    int       `json:"skipped"`
	// Unvalidated says the sources were added without validation
	// fetches: each is checked at its first poll.
	Unvalidated bool `json:"unvalidated"`
}

func (r *Report) count() {
	r.Added, r.Duplicates, r.Rejected, r.Skipped = 0, 0, 0, 0
	for _, o := range r.Outcomes {
		switch o.Status {
		case StatusAdded:
			r.Added++
		case StatusDuplicate:
			r.Duplicates++
		case StatusRejected:
			r.Rejected++
		case StatusSkipped:
			r.Skipped++
		}
	}
}

// Import creates a source in workspaceID for every outline through c.
// Duplicates within the list and of opts.Existing are decided before any
// creation; the creations run at most opts.Concurrency at a time, one per
// host at a time, opts.HostGap apart per host. A creation error that
// wraps ErrDuplicate, ErrInvalid or ErrUnavailable decides its outline;
// any other error stops the import: creations in flight finish, the rest
// are reported skipped, and the error is returned with the report. A
// canceled ctx stops it the same way.
func Import(ctx context.Context, c Creator, workspaceID int64, outlines []Outline, opts ImportOptions) (Report, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	switch {
	case opts.HostGap == 0:
		opts.HostGap = DefaultHostGap
	case opts.HostGap < 0:
		opts.HostGap = 0
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	outcomes, tasks := plan(outlines, opts)
	r := &runner{
		creator: c, workspace: workspaceID, opts: opts, report: Report{Outcomes: outcomes},
		done: make(chan completion), progress: newProgress(opts.Clock, len(outlines), len(tasks)),
	}
	err := r.run(ctx, tasks)
	r.report.count()
	return r.report, err
}

// completion is one finished creation.
type completion struct {
	t       task
	started time.Time
	res     Result
	err     error
}

// decide records a creation's outcome, and returns the error that stops
// the import when it is not an outline's own.
func (r *runner) decide(ctx context.Context, c completion) error {
	out := &r.report.Outcomes[c.t.idx]
	switch {
	case c.err == nil:
		out.Status, out.SourceID, out.Title = StatusAdded, c.res.SourceID, c.res.Title
	case errors.Is(c.err, ErrDuplicate):
		out.Status, out.Reason = StatusDuplicate, c.err.Error()
	case errors.Is(c.err, ErrInvalid), errors.Is(c.err, ErrUnavailable):
		out.Status, out.Reason = StatusRejected, c.err.Error()
	case ctx.Err() != nil:
		out.Status, out.Reason = StatusSkipped, "import canceled"
	default:
		out.Status, out.Reason = StatusSkipped, "import stopped: "+c.err.Error()
		return fmt.Errorf("import %s: %w", c.t.spec.URL, c.err)
	}
	return nil
}
