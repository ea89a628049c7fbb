package poller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

// Outcome is the result of one poll, as the CLI and the API report it.
type Outcome struct {
	SourceID       int64  `json:"source_id"`
	SourceType     string `json:"source_type"`
	Status         string `json:"status"`
	HTTPStatus     int    `json:"http_status"`
	ItemsSeen      int    `json:"items_seen"`
	ItemsNew       int    `json:"items_new"`
	ItemsDuplicate int    `json:"items_duplicate"`
	ItemsPromoted  int    `json:"items_promoted"`
	Error          string `json:"error,omitempty"`
	DurationMS     int64  `json:"duration_ms"`
}

// errNotRecorded marks a poll whose results did not reach the database; the
// lease runs out and the poll is redone.
var errNotRecorded = errors.New("poll not recorded")

// PollNow leases one source of a workspace (0: any) and polls it at once.
func (p *Poller) PollNow(ctx context.Context, workspaceID, sourceID int64) (Outcome, error) {
	src, err := p.store.ClaimSource(ctx, workspaceID, sourceID, p.opts.Owner, p.opts.Lease)
	if err != nil {
		return Outcome{}, err
	}
	return p.Poll(ctx, *src)
}

// Poll runs one poll of a source this poller has leased and records its
// outcome. An error means the outcome could not be stored (the poll will be
// redone once the lease runs out); a failed fetch is an Outcome, not an error.
func (p *Poller) Poll(ctx context.Context, src store.FeedSource) (Outcome, error) {
	start := time.Now()
	if src.DueAt != nil {
		p.metrics.SchedulerLag.Observe(max(0, start.Sub(*src.DueAt).Seconds()))
	}
	p.metrics.InFlight.Inc()
	defer p.metrics.InFlight.Dec()

	out := Outcome{SourceID: src.ID, SourceType: src.SourceType}
	save := store.PollSave{WorkspaceID: src.WorkspaceID, SourceID: src.ID, Owner: p.opts.Owner,
		Run: store.PollRun{StartedAt: start.UTC()}}

	fetcher, ok := p.opts.Fetchers[src.SourceType]
	if !ok {
		save.Source = store.SourceUpdate{Status: store.StatusNotSupported, NextPollAt: p.nextPoll(src, 0),
			Error: fmt.Sprintf("source type %q is not polled", src.SourceType)}
		return p.finish(ctx, src, save, out, start)
	}

	req := sources.Request{SourceID: src.ID, URL: src.URL, ETag: src.ETag, LastModified: src.LastModified}
	unconditional := src.LastUnconditionalAt == nil || start.Sub(*src.LastUnconditionalAt) >= p.opts.UnconditionalEvery
	if unconditional {
		// Once a day without validators, so a server whose validators went
		// stale cannot hide new items forever.
		req.ETag, req.LastModified = "", ""
	}
	res, err := fetcher.Fetch(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			// Shutting down: not the source's failure. Give the lease back.
			_ = p.store.ReleaseLeases(context.WithoutCancel(ctx), p.opts.Owner, []int64{src.ID})
			return out, fmt.Errorf("poll source %d: %w", src.ID, ctx.Err())
		}
		save.Source = p.failure(src, err)
		save.Run.HTTPStatus = httpStatusOf(err)
		return p.finish(ctx, src, save, out, start)
	}
	save.Run.HTTPStatus = res.HTTPStatus
	save.Source = store.SourceUpdate{Status: store.StatusOK, Reset: true, NextPollAt: p.nextPoll(src, 0),
		ETag: &res.ETag, LastModified: &res.LastModified, Unconditional: unconditional, Title: res.FeedTitle}
	if res.NotModified {
		save.Source.Status = store.StatusNotModified
		// A 304 may omit validators; keep the stored ones then.
		if res.ETag == "" {
			save.Source.ETag = nil
		}
		if res.LastModified == "" {
			save.Source.LastModified = nil
		}
		return p.finish(ctx, src, save, out, start)
	}
	save.Run.ItemsSeen = len(res.Items)
	arts, dups, err := p.process(ctx, src, res.Items)
	if err != nil {
		if ctx.Err() != nil {
			_ = p.store.ReleaseLeases(context.WithoutCancel(ctx), p.opts.Owner, []int64{src.ID})
			return out, fmt.Errorf("poll source %d: %w", src.ID, ctx.Err())
		}
		p.metrics.DatabaseErrors.Inc()
		p.outage.report("dedup lookup", err)
		return out, fmt.Errorf("poll source %d: %w: %w", src.ID, errNotRecorded, err)
	}
	save.Articles = arts
	save.Run.ItemsDuplicate = dups
	return p.finish(ctx, src, save, out, start)
}

// finish stores the poll and reports it.
func (p *Poller) finish(ctx context.Context, src store.FeedSource, save store.PollSave, out Outcome, start time.Time) (Outcome, error) {
	save.Run.Outcome = save.Source.Status
	save.Run.Error = save.Source.Error
	fin := time.Now().UTC()
	save.Run.FinishedAt = &fin
	save.Run.DurationMS = fin.Sub(start).Milliseconds()
	// The write must not be cut short by a shutdown signal: a poll that got
	// this far is stored whole or not at all.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	counts, err := p.store.SavePoll(wctx, save)
	if err != nil {
		p.metrics.DatabaseErrors.Inc()
		p.outage.report("saving a poll", err)
		return out, fmt.Errorf("poll source %d: %w: %w", src.ID, errNotRecorded, err)
	}
	p.outage.recovered()
	out.Status = save.Source.Status
	out.HTTPStatus = save.Run.HTTPStatus
	out.ItemsSeen = save.Run.ItemsSeen
	out.ItemsNew = counts.New
	out.ItemsDuplicate = save.Run.ItemsDuplicate + counts.Duplicate
	out.ItemsPromoted = counts.Promoted
	out.Error = save.Source.Error
	out.DurationMS = save.Run.DurationMS

	p.metrics.Polls.WithLabelValues(src.SourceType, out.Status).Inc()
	p.metrics.PollDuration.WithLabelValues(src.SourceType).Observe(time.Since(start).Seconds())
	p.metrics.Items.WithLabelValues("new").Add(float64(out.ItemsNew))
	p.metrics.Items.WithLabelValues("duplicate").Add(float64(out.ItemsDuplicate))
	p.metrics.Items.WithLabelValues("promoted").Add(float64(out.ItemsPromoted))
	level := p.log.Debug
	if out.Status == store.StatusError || out.Status == store.StatusGone {
		level = p.log.Warn
	}
	level("poll", "source_id", src.ID, "type", src.SourceType, "status", out.Status, "http_status", out.HTTPStatus,
		"seen", out.ItemsSeen, "new", out.ItemsNew, "duplicate", out.ItemsDuplicate, "promoted", out.ItemsPromoted,
		"error", out.Error, "ms", out.DurationMS)
	return out, nil
}

func httpStatusOf(err error) int {
	var fe *sources.FetchError
	if errors.As(err, &fe) {
		return fe.Status
	}
	return 0
}
