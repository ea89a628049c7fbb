package poller

import (
	"context"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller/pipeline"
	"github.com/feedpoller/feedpoller/poller/schedule"
	"github.com/feedpoller/feedpoller/sources"
)

// Push stores items a WebSub hub delivered for src: the same per-item
// pipeline as a poll (so a push and a poll of one item make one article),
// no fetch deadline, and a poll_runs row with outcome pushed. The
// scheduler learns from the new items; the next poll stays where it is.
// A push that brings nothing new (a hub's retry of a delivery already
// stored, a replay) writes nothing, not even a poll_runs row. res is the
// parsed delivery: the entries it left unparsed (res.Unchanged) count as
// seen and as duplicates, and res.Settle learns which of the others are
// stored once they are.
func (p *Poller) Push(ctx context.Context, src model.FeedSource, res *sources.Result) (model.PollOutcome, error) {
	start := time.Now()
	items := res.Items
	seen := len(items) + res.Unchanged
	out := model.PollOutcome{SourceID: src.ID, SourceType: src.SourceType, Status: model.StatusPushed, ItemsSeen: seen,
		ItemsUnchanged: res.Unchanged}
	processed, err := p.pipeline.Run(ctx, pipeline.Batch{Source: src, Items: items})
	if err != nil {
		return out, fmt.Errorf("push to source %d: %w", src.ID, err)
	}
	processed.Duplicates += res.Unchanged
	if len(processed.Articles) == 0 {
		// What it found stored was stored before: settled already.
		if res.Settle != nil {
			res.Settle(processed.Settled)
		}
		out.ItemsDuplicate = processed.Duplicates
		out.DurationMS = time.Since(start).Milliseconds()
		p.log.Info("push with nothing new; not recorded", "source_id", src.ID, "host", hostOf(src.URL), "seen", out.ItemsSeen,
			"duplicate", out.ItemsDuplicate, "ms", out.DurationMS)
		return out, nil
	}
	var st schedule.State
	if err := st.UnmarshalText([]byte(src.ScheduleState)); err != nil {
		p.log.Warn("schedule state of source unreadable; starting afresh", "source_id", src.ID, "err", err)
	}
	obs := fetched(src, res, processed.Articles)
	st = schedule.Learn(start, p.ScheduleConfig(src), st, obs)
	text, err := st.MarshalText()
	if err != nil {
		p.log.Warn("schedule state of source not stored", "source_id", src.ID, "err", err)
		text = nil
	}
	fin := time.Now().UTC()
	run := model.PollRun{StartedAt: start.UTC(), FinishedAt: &fin, Outcome: model.StatusPushed, ItemsSeen: seen,
		ItemsDuplicate: processed.Duplicates, DurationMS: fin.Sub(start).Milliseconds()}
	counts, err := p.store.SavePush(ctx, model.PushSave{WorkspaceID: src.WorkspaceID, SourceID: src.ID,
		Articles: processed.Articles, ScheduleState: string(text), Run: run, Stories: processed.Stories})
	if err != nil {
		return out, fmt.Errorf("push to source %d: %w", src.ID, err)
	}
	if res.Settle != nil {
		res.Settle(processed.Settled)
	}
	out.ItemsNew, out.ItemsDuplicate, out.ItemsPromoted = counts.New, processed.Duplicates+counts.Duplicate, counts.Promoted
	out.Stories, out.FreqReads = counts.Stories, counts.FreqReads
	out.DurationMS = time.Since(start).Milliseconds()
	p.metrics.countItems(out)
	p.log.Info("push", "source_id", src.ID, "host", hostOf(src.URL), "seen", out.ItemsSeen, "new", out.ItemsNew,
		"duplicate", out.ItemsDuplicate, "promoted", out.ItemsPromoted, "ms", out.DurationMS)
	return out, nil
}
