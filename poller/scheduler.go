package poller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/feedpoller/feedpoller/store"
)

// Run polls due sources on the cron schedule until ctx is cancelled. Then
// it stops claiming, lets in-flight polls finish within ShutdownGrace,
// gives back the leases of sources it had claimed but not started, and
// returns. A database outage is logged, never fatal: the next tick tries
// again.
func (p *Poller) Run(ctx context.Context) error {
	sched, err := cron.ParseStandard(p.opts.Schedule)
	if err != nil {
		return fmt.Errorf("poller schedule %q: %w", p.opts.Schedule, err)
	}
	// Polls get their own context: a stop signal ends claiming at once but
	// leaves running polls the grace period.
	pollCtx, cancelPolls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelPolls()

	jobs := make(chan job)
	var wg sync.WaitGroup
	for i := 0; i < p.opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				out, err := p.Poll(pollCtx, j.src)
				if err != nil && !errors.Is(err, context.Canceled) {
					p.log.Debug("poll not recorded", "source_id", j.src.ID, "err", err)
				}
				j.tally.add(out, err)
			}
		}()
	}
	p.log.Info("poller started", "schedule", p.opts.Schedule, "workers", p.opts.Workers, "owner", p.opts.Owner)

	for {
		p.tick(ctx, jobs)
		next := sched.Next(time.Now())
		select {
		case <-ctx.Done():
			close(jobs)
			return p.drain(&wg, cancelPolls)
		case <-time.After(time.Until(next)):
		}
	}
}

// drain waits for in-flight polls up to the grace period, then cancels them.
func (p *Poller) drain(wg *sync.WaitGroup, cancelPolls context.CancelFunc) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		p.log.Info("poller stopped; in-flight polls finished")
		return nil
	case <-time.After(p.opts.ShutdownGrace):
		cancelPolls()
		<-done
		p.log.Warn("poller stopped; polls still running after the grace period were cancelled and their leases released",
			"grace", p.opts.ShutdownGrace)
		return nil
	}
}

// tick claims due sources batch after batch and hands them to the workers,
// until none is due. A batch is claimed only as workers take work, so a
// lease is not spent waiting in a queue. When the tick's polls are done,
// one line sums them up; a tick that found nothing due logs nothing.
func (p *Poller) tick(ctx context.Context, jobs chan<- job) {
	p.outage.flush()
	if n, err := p.store.CountDue(ctx); err == nil {
		p.metrics.DueBacklog.Set(float64(n))
	}
	t := newTally()
	defer t.close(p.log)
	for ctx.Err() == nil {
		batch, err := p.store.ClaimDue(ctx, p.opts.Owner, p.opts.BatchSize, p.opts.Lease)
		if err != nil {
			if ctx.Err() == nil {
				p.metrics.DatabaseErrors.Inc()
				p.outage.report(opClaim, err)
			}
			return
		}
		p.outage.recovered(opClaim)
		t.claim(len(batch))
		for i, src := range batch {
			select {
			case jobs <- job{src: src, tally: t}:
			case <-ctx.Done():
				t.unclaim(len(batch) - i)
				p.release(batch[i:])
				return
			}
		}
		if len(batch) < p.opts.BatchSize {
			return
		}
	}
}

func (p *Poller) release(srcs []store.FeedSource) {
	ids := make([]int64, len(srcs))
	for i, s := range srcs {
		ids[i] = s.ID
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.store.ReleaseLeases(ctx, p.opts.Owner, ids); err != nil {
		p.log.Warn("could not release leases; they expire by themselves", "sources", len(ids), "err", err)
	}
}

// PollDue claims and polls every due source once, waiting for all of them
// (the CLI's `feedpoller poll`). report is called after each poll.
func (p *Poller) PollDue(ctx context.Context, report func(Outcome, error)) error {
	jobs := make(chan store.FeedSource)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < p.opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for src := range jobs {
				out, err := p.Poll(ctx, src)
				mu.Lock()
				report(out, err)
				mu.Unlock()
			}
		}()
	}
	var claimErr error
	for ctx.Err() == nil {
		batch, err := p.store.ClaimDue(ctx, p.opts.Owner, p.opts.BatchSize, p.opts.Lease)
		if err != nil {
			claimErr = err
			break
		}
		for _, src := range batch {
			jobs <- src
		}
		if len(batch) < p.opts.BatchSize {
			break
		}
	}
	close(jobs)
	wg.Wait()
	return claimErr
}
