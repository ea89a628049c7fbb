package opml

import (
	"container/heap"
	"context"
	"time"
)

// host is the queue of one host's creations.
type host struct {
	tasks []task
	// next is the earliest start of its next creation (politeness gap).
	next time.Time
}

// runner runs the planned creations. Only run's goroutine touches its
// fields; creations report back over done.
type runner struct {
	creator   Creator
	workspace int64
	opts      ImportOptions
	report    Report
	done      chan completion
	progress  *progress

	hosts    map[string]*host
	ready    readyHeap // idle hosts whose gap has passed, by their next task's index
	cooling  coolHeap  // idle hosts still inside their gap, by when it ends
	inflight int
}

// run dispatches tasks until all are decided or the import stops.
func (r *runner) run(ctx context.Context, tasks []task) error {
	r.hosts = map[string]*host{}
	for _, t := range tasks {
		h := r.hosts[t.host]
		if h == nil {
			h = &host{}
			r.hosts[t.host] = h
		}
		h.tasks = append(h.tasks, t)
	}
	for _, h := range r.hosts {
		heap.Push(&r.ready, h)
	}
	r.report.count()
	r.emit()

	var stopErr error
	cancelled := ctx.Done()
	stopped := func() bool { return stopErr != nil || ctx.Err() != nil }
	for {
		now := r.opts.Clock.Now()
		for r.cooling.Len() > 0 && !r.cooling[0].next.After(now) {
			heap.Push(&r.ready, heap.Pop(&r.cooling))
		}
		for !stopped() && r.inflight < r.opts.Concurrency && r.ready.Len() > 0 {
			r.start(ctx, heap.Pop(&r.ready).(*host), now)
		}
		if r.inflight == 0 && (stopped() || r.ready.Len()+r.cooling.Len() == 0) {
			break
		}
		var timer <-chan time.Time
		if !stopped() && r.inflight < r.opts.Concurrency && r.ready.Len() == 0 && r.cooling.Len() > 0 {
			timer = r.opts.Clock.After(r.cooling[0].next.Sub(now))
		}
		select {
		case c := <-r.done:
			r.inflight--
			if err := r.decide(ctx, c); err != nil && stopErr == nil {
				stopErr = err
			}
			h := r.hosts[c.t.host]
			h.next = c.started.Add(r.opts.HostGap)
			if len(h.tasks) > 0 {
				heap.Push(&r.cooling, h)
			}
			r.report.count()
			r.emit()
		case <-timer:
		case <-cancelled:
			cancelled = nil
		}
	}
	r.skipRest(stopErr)
	if stopErr != nil {
		return stopErr
	}
	return ctx.Err()
}

// start runs the next creation of h.
func (r *runner) start(ctx context.Context, h *host, now time.Time) {
	t := h.tasks[0]
	h.tasks = h.tasks[1:]
	r.inflight++
	go func() {
		res, err := r.creator.CreateSource(ctx, r.workspace, t.spec)
		r.done <- completion{t: t, started: now, res: res, err: err}
	}()
}

// skipRest reports the creations never started.
func (r *runner) skipRest(stopErr error) {
	reason := "import canceled"
	if stopErr != nil {
		reason = "import stopped: " + stopErr.Error()
	}
	for _, h := range r.hosts {
		for _, t := range h.tasks {
			out := &r.report.Outcomes[t.idx]
			out.Status, out.Reason = StatusSkipped, reason
		}
		h.tasks = nil
	}
	r.report.count()
}

func (r *runner) emit() {
	if r.opts.Progress != nil {
		r.opts.Progress(r.progress.at(r.report))
	}
}

// readyHeap orders idle hosts by the list position of their next task, so
// creations start in document order as far as politeness allows.
type readyHeap []*host

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return h[i].tasks[0].idx < h[j].tasks[0].idx }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(*host)) }
func (h *readyHeap) Pop() any          { return pop((*[]*host)(h)) }

// coolHeap orders hosts inside their gap by when it ends.
type coolHeap []*host

func (h coolHeap) Len() int           { return len(h) }
func (h coolHeap) Less(i, j int) bool { return h[i].next.Before(h[j].next) }
func (h coolHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *coolHeap) Push(x any)        { *h = append(*h, x.(*host)) }
func (h *coolHeap) Pop() any          { return pop((*[]*host)(h)) }

func pop(s *[]*host) any {
	old := *s
	x := old[len(old)-1]
	*s = old[:len(old)-1]
	return x
}
