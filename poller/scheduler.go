package poller

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Run polls due sources on the cron schedule until ctx is cancelled. Then
// it stops claiming, lets in-flight polls finish within ShutdownGrace,
// gives back the leases of sources it had claimed but not started, and
// returns. A database outage is logged, never fatal: the next tick tries
// again.
func (p *Poller) Run(ctx context.Context) error {
	// Polls get their own context: a stop signal ends claiming at once but
	// leaves running polls the grace period.
	pollCtx, cancelPolls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelPolls()
	jobs := make(chan job)
	wg := p.startWorkers(pollCtx, jobs)
	p.log.Info("poller started", "schedule", p.opts.Schedule, "workers", p.opts.Workers, "owner", p.opts.Owner)

	for {
		p.tick(ctx, jobs)
		next := p.schedule.Next(time.Now())
		select {
		case <-ctx.Done():
			close(jobs)
			return p.drain(wg, cancelPolls)
		case <-time.After(time.Until(next)):
		}
	}
}

// PollDue claims and polls every due source once, waiting for all of them
// (the CLI's `feedpoller poll`). report is called after each poll, one
// call at a time. When ctx ends, the sources claimed but not yet started
// are given back and ctx's error is returned.
func (p *Poller) PollDue(ctx context.Context, report func(model.PollOutcome, error)) error {
	jobs := make(chan job)
	wg := p.startWorkers(ctx, jobs)
	t := newTally()
	t.report = report
	err := p.claimAll(ctx, jobs, t)
	close(jobs)
	wg.Wait()
	return err
}

// startWorkers starts the worker pool: Workers goroutines that poll the
// sources sent on jobs, on ctx, until jobs is closed.
func (p *Poller) startWorkers(ctx context.Context, jobs <-chan job) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range p.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				out, err := p.Poll(ctx, j.src)
				if err != nil && !errors.Is(err, context.Canceled) {
					p.log.Debug("poll not recorded", "source_id", j.src.ID, "err", err)
				}
				j.tally.add(out, err)
			}
		}()
	}
	return &wg
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

// tick hands every due source to the workers. When the tick's polls are
// done, one line sums them up; a tick that found nothing due logs nothing
// at info. A failed claim is an outage, reported and retried at the next
// tick.
func (p *Poller) tick(ctx context.Context, jobs chan<- job) {
	p.outage.flush()
	if n, err := p.store.CountDue(ctx); err == nil {
		p.metrics.DueBacklog.Set(float64(n))
	}
	p.refreshSourceHealth(ctx)
	t := newTally()
	defer t.close(p.log)
	if err := p.claimAll(ctx, jobs, t); err != nil && ctx.Err() == nil {
		p.metrics.DatabaseErrors.Inc()
		p.outage.report(opClaim, err)
	}
}

// claimAll claims due sources batch after batch and hands them to the
// workers, until none is due. A batch is claimed only as workers take
// work, so a lease is not spent waiting in a queue. When ctx ends, the
// sources claimed but not handed out are given back.
func (p *Poller) claimAll(ctx context.Context, jobs chan<- job, t *tally) error {
	for ctx.Err() == nil {
		batch, err := p.store.ClaimDue(ctx, p.opts.Owner, p.opts.BatchSize, p.opts.Lease)
		if err != nil {
			return err
		}
		p.outage.recovered(opClaim)
		t.claim(len(batch))
		for i, src := range batch {
			select {
			case jobs <- job{src: src, tally: t}:
			case <-ctx.Done():
				t.unclaim(len(batch) - i)
				p.release(ctx, batch[i:]...)
				return ctx.Err()
			}
		}
		if len(batch) < p.opts.BatchSize {
			return nil
		}
	}
	return ctx.Err()
}

// release gives back the leases of sources this poller claimed and will
// not poll now, so they are claimed afresh without waiting for the lease
// to run out. It runs even when ctx is cancelled (a shutdown); a failure
// is logged, and harmless: the leases expire by themselves.
func (p *Poller) release(ctx context.Context, srcs ...model.FeedSource) {
	ids := make([]int64, len(srcs))
	for i, s := range srcs {
		ids[i] = s.ID
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := p.store.ReleaseLeases(ctx, p.opts.Owner, ids); err != nil {
		p.log.Warn("could not release leases; they expire by themselves", "sources", len(ids), "err", err)
	}
}
