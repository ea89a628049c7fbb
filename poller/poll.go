package poller

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller/pipeline"
	"github.com/feedpoller/feedpoller/poller/schedule"
	"github.com/feedpoller/feedpoller/sources"
)

// errNotRecorded marks a poll whose results did not reach the database; the
// lease runs out and the poll is redone.
var errNotRecorded = errors.New("poll not recorded")

// PollNow leases one source of a workspace (0: any) and polls it at once.
func (p *Poller) PollNow(ctx context.Context, workspaceID, sourceID int64) (model.PollOutcome, error) {
	src, err := p.store.ClaimSource(ctx, workspaceID, sourceID, p.opts.Owner, p.opts.Lease)
	if err != nil {
		return model.PollOutcome{}, err
	}
	return p.Poll(ctx, *src)
}

// Poll runs one poll of a source this poller has leased and records its
// outcome. An error means the outcome could not be stored (the poll will be
// redone once the lease runs out); a failed fetch is an Outcome, not an
// error, and so is a poll whose data the database refused.
//
// A poll ends within its lease: fetching (the feed, article pages,
// renders) stops when the lease is about to run out, leaving time to save,
// and the save itself only counts while the lease is still held. So no
// other poll of the source, by this daemon or another, can start while
// this one runs.
func (p *Poller) Poll(ctx context.Context, src model.FeedSource) (model.PollOutcome, error) {
	start := time.Now()
	if src.DueAt != nil {
		p.metrics.SchedulerLag.Observe(max(0, start.Sub(*src.DueAt).Seconds()))
	}
	p.metrics.InFlight.Inc()
	defer p.metrics.InFlight.Dec()

	out := model.PollOutcome{SourceID: src.ID, SourceType: src.SourceType}
	save := model.PollSave{WorkspaceID: src.WorkspaceID, SourceID: src.ID, Owner: p.opts.Owner,
		Run: model.PollRun{StartedAt: start.UTC()}}

	leaseEnd, fetchBy := p.pollDeadlines(src, start)
	if !start.Before(fetchBy) {
		// Waited for a worker until the lease was all but spent: give it
		// back so the source is claimed afresh.
		p.release(ctx, src)
		return out, fmt.Errorf("poll source %d: %w: its lease ran out before a worker took it", src.ID, errNotRecorded)
	}
	// The write gets the whole lease; the network only the part before it.
	ctx, cancel := context.WithDeadline(ctx, leaseEnd)
	defer cancel()
	netCtx, cancelNet := context.WithDeadline(ctx, fetchBy)
	defer cancelNet()

	fetcher, ok := p.opts.Fetchers[src.SourceType]
	if !ok {
		save.Source = model.SourceUpdate{Status: model.StatusNotSupported,
			Error: fmt.Sprintf("source type %q is not polled", src.SourceType)}
		return p.finish(ctx, src, save, schedule.Observation{Outcome: schedule.Skipped}, out, start)
	}

	req := sources.Request{SourceID: src.ID, URL: src.URL, ETag: src.ETag, LastModified: src.LastModified}
	unconditional := src.LastUnconditionalAt == nil || start.Sub(*src.LastUnconditionalAt) >= p.opts.UnconditionalEvery
	if unconditional {
		// Once a day without validators, so a server whose validators went
		// stale cannot hide new items forever.
		req.ETag, req.LastModified = "", ""
	}
	res, err := fetcher.Fetch(netCtx, req)
	if err != nil {
		if ctx.Err() != nil {
			// Shutting down: not the source's failure. Give the lease back.
			p.release(ctx, src)
			return out, fmt.Errorf("poll source %d: %w", src.ID, ctx.Err())
		}
		if netCtx.Err() != nil {
			err = fmt.Errorf("poll took longer than its lease allows (%s to fetch, the rest kept to save it): %w",
				fetchBy.Sub(start).Round(time.Millisecond), err)
		}
		var obs schedule.Observation
		save.Source, obs = failure(src, err)
		save.Run.HTTPStatus = httpStatusOf(err)
		return p.finish(ctx, src, save, obs, out, start)
	}
	save.Run.HTTPStatus = res.HTTPStatus
	save.Source = model.SourceUpdate{Status: model.StatusOK, Reset: true,
		ETag: &res.ETag, LastModified: &res.LastModified, Unconditional: unconditional, Title: res.FeedTitle}
	if res.NotModified {
		save.Source.Status = model.StatusNotModified
		// A 304 may omit validators; keep the stored ones then.
		if res.ETag == "" {
			save.Source.ETag = nil
		}
		if res.LastModified == "" {
			save.Source.LastModified = nil
		}
		return p.finish(ctx, src, save, schedule.Observation{Outcome: schedule.NotModified, Hints: res.Hints}, out, start)
	}
	if src.SourceType != model.SourceWeb {
		save.Source.HubURL, save.Source.SelfURL = webSubLinks(res.Hints)
		save.Source.SiteURL = res.SiteURL
	}
	save.Run.ItemsSeen = len(res.Items) + res.Unchanged
	processed, err := p.pipeline.Run(ctx, pipeline.Batch{Source: src, Items: res.Items, FetchBy: fetchBy})
	if err != nil {
		if ctx.Err() != nil {
			p.release(ctx, src)
			return out, fmt.Errorf("poll source %d: %w", src.ID, ctx.Err())
		}
		if errors.Is(err, model.ErrRefusedData) {
			save, obs := refused(src, save, err)
			return p.finish(ctx, src, save, obs, out, start)
		}
		p.metrics.DatabaseErrors.Inc()
		p.outage.report(opLookup, err)
		return out, fmt.Errorf("poll source %d: %w: %w", src.ID, errNotRecorded, err)
	}
	p.outage.recovered(opLookup)
	save.Articles = processed.Articles
	save.Stories = processed.Stories
	save.Run.ItemsDuplicate = processed.Duplicates + res.Unchanged
	out.ItemsUnchanged = res.Unchanged
	out, err = p.finish(ctx, src, save, fetched(src, res, processed.Articles), out, start)
	if err == nil && out.Status == model.StatusOK && res.Settle != nil {
		// Only now are the stored articles there for good.
		res.Settle(processed.Settled)
	}
	return out, err
}

// pollDeadlines returns when src's lease ends and when fetching must stop
// so that saving fits before it. The margin kept for the save is a fifth
// of the lease, at most 30s.
func (p *Poller) pollDeadlines(src model.FeedSource, start time.Time) (leaseEnd, fetchBy time.Time) {
	leaseEnd = start.Add(p.opts.Lease)
	if src.LeaseUntil != nil {
		leaseEnd = *src.LeaseUntil
	}
	return leaseEnd, leaseEnd.Add(-min(p.opts.Lease/5, 30*time.Second))
}

// refused turns a poll whose data the database refused (a data error, not
// an outage) into a failed poll of its source: recorded, counted, backed
// off like any failure, so the source cannot wedge the daemon by being
// redone at every lease expiry.
func refused(src model.FeedSource, save model.PollSave, err error) (model.PollSave, schedule.Observation) {
	save.Articles = nil
	save.Run.ItemsDuplicate = 0
	save.Source = model.SourceUpdate{Status: model.StatusError, Failed: true,
		Error: "the database refused this poll's data, nothing of it was stored: " + err.Error()}
	return save, schedule.Observation{Outcome: schedule.Failed, Failures: src.ConsecutiveFailures + 1}
}

// finish decides the next poll from what the poll observed, stores the
// poll and reports it.
func (p *Poller) finish(ctx context.Context, src model.FeedSource, save model.PollSave, obs schedule.Observation,
	out model.PollOutcome, start time.Time) (model.PollOutcome, error) {
	// The write must not be cut short by a shutdown signal: a poll that got
	// this far is stored whole or not at all. It must not outlast the
	// lease either (ctx carries the lease's end).
	dl, _ := ctx.Deadline()
	wctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), dl)
	defer cancel()
	now := p.opts.Clock()
	p.decide(src, &save.Source, obs, now)
	counts, err := p.save(wctx, &save, start)
	if err != nil && errors.Is(err, model.ErrRefusedData) {
		p.log.Warn("the database refused a poll's data; recording the poll as failed", "source_id", src.ID, "err", err)
		save, obs = refused(src, save, err)
		p.decide(src, &save.Source, obs, now)
		counts, err = p.save(wctx, &save, start)
	}
	// A save cut short by the lease's own end is the lease running out
	// (a slow or loaded machine), not the database failing: it must not
	// open or prolong an outage.
	if err != nil && wctx.Err() != nil && !errors.Is(err, model.ErrLeaseLost) {
		err = fmt.Errorf("%w: the save did not finish before the lease's end: %w", model.ErrLeaseLost, err)
	}
	if errors.Is(err, model.ErrLeaseLost) {
		p.log.Warn("poll not recorded: its lease ran out or the source was deleted", "source_id", src.ID,
			"err", err, "ms", time.Since(start).Milliseconds())
		return out, fmt.Errorf("poll source %d: %w: %w", src.ID, errNotRecorded, err)
	}
	if err != nil {
		p.metrics.DatabaseErrors.Inc()
		p.outage.report(opSave, err)
		return out, fmt.Errorf("poll source %d: %w: %w", src.ID, errNotRecorded, err)
	}
	p.outage.recovered(opSave)
	out.Status = save.Source.Status
	out.HTTPStatus = save.Run.HTTPStatus
	out.ItemsSeen = save.Run.ItemsSeen
	out.ItemsNew = counts.New
	out.ItemsDuplicate = save.Run.ItemsDuplicate + counts.Duplicate
	out.ItemsPromoted = counts.Promoted
	out.Stories, out.FreqReads = counts.Stories, counts.FreqReads
	out.Error = save.Source.Error
	out.DurationMS = save.Run.DurationMS
	out.NextPollAt, out.NextPollReason = save.Source.NextPollAt, save.Source.NextPollReason

	p.metrics.Polls.WithLabelValues(src.SourceType, out.Status).Inc()
	p.metrics.NextPolls.WithLabelValues(save.Source.NextPollKind).Inc()
	p.metrics.PollDuration.WithLabelValues(src.SourceType).Observe(time.Since(start).Seconds())
	p.metrics.countItems(out)
	p.logPoll(src, out)
	return out, nil
}

// save completes the poll_runs row and writes the poll.
func (p *Poller) save(ctx context.Context, save *model.PollSave, start time.Time) (model.SaveCounts, error) {
	save.Run.Outcome = save.Source.Status
	save.Run.Error = save.Source.Error
	fin := time.Now().UTC()
	save.Run.FinishedAt = &fin
	save.Run.DurationMS = fin.Sub(start).Milliseconds()
	return p.store.SavePoll(ctx, *save)
}

// logPoll writes the one line every poll gets at info level (warn when it
// failed): which source, what came of it, how long it took, and when the
// source is polled next and why.
func (p *Poller) logPoll(src model.FeedSource, out model.PollOutcome) {
	level := p.log.Info
	if out.Status == model.StatusError || out.Status == model.StatusGone {
		level = p.log.Warn
	}
	args := []any{"source_id", src.ID, "host", hostOf(src.URL)}
	if src.Title != "" {
		args = append(args, "title", src.Title)
	}
	args = append(args, "type", src.SourceType, "status", out.Status, "http_status", out.HTTPStatus,
		"seen", out.ItemsSeen, "new", out.ItemsNew, "duplicate", out.ItemsDuplicate, "promoted", out.ItemsPromoted,
		"ms", out.DurationMS, "next_poll", out.NextPollAt.UTC().Format(time.RFC3339), "next_poll_reason", out.NextPollReason)
	if out.Error != "" {
		args = append(args, "err", out.Error)
	}
	level("poll", args...)
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

func httpStatusOf(err error) int {
	var fe *sources.FetchError
	if errors.As(err, &fe) {
		return fe.Status
	}
	return 0
}
