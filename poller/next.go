package poller

import (
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller/schedule"
	"github.com/feedpoller/feedpoller/sources"
)

// decide is the one place a next poll is decided: from the source's
// stored schedule mode and state and what this poll observed, through the
// scheduling policy (package schedule). It writes the time, the reason,
// its kind and the new state into the poll's bookkeeping, so that they are
// stored by the poll's one save, and dates the poll now.
func (p *Poller) decide(src model.FeedSource, u *model.SourceUpdate, obs schedule.Observation, now time.Time) {
	var st schedule.State
	if err := st.UnmarshalText([]byte(src.ScheduleState)); err != nil {
		// The source is then scheduled as a new one, never stopped.
		p.log.Warn("schedule state of source unreadable; starting afresh", "source_id", src.ID, "err", err)
	}
	obs.Subscribed = src.WebSubSubscribedUntil != nil && now.Before(*src.WebSubSubscribedUntil)
	d, st := schedule.Next(now, p.ScheduleConfig(src), st, obs)
	text, err := st.MarshalText()
	if err != nil {
		p.log.Warn("schedule state of source not stored", "source_id", src.ID, "err", err)
		text = nil
	}
	u.PolledAt, u.NextPollAt = now.UTC(), d.At.UTC()
	u.NextPollReason, u.NextPollKind, u.ScheduleState = d.Reason, string(d.Kind), string(text)
}

// ScheduleConfig is the scheduling configuration of one source: its mode
// and interval, the daemon's bounds. Whatever else teaches the source's
// estimate (schedule.Learn, for items pushed through WebSub) uses it too.
func (p *Poller) ScheduleConfig(src model.FeedSource) schedule.Config {
	mode, err := schedule.ParseMode(src.ScheduleMode)
	if err != nil {
		p.log.Warn("schedule mode of source unknown; scheduling it adaptively", "source_id", src.ID, "err", err)
		mode = schedule.Adaptive
	}
	return schedule.Config{
		Mode: mode, Base: time.Duration(max(src.PollingIntervalMinutes, 1)) * time.Minute,
		Floor: p.opts.Floor, Ceiling: p.opts.Ceiling, MaxBackoff: p.opts.MaxBackoff, Jitter: p.opts.Jitter,
		Safety: p.opts.Safety, Target: p.opts.Target, Balance: p.opts.Balance, Rand: rand.Float64,
	}
}

// fetched is what a poll that got content tells the policy: how many of
// the listed items were new, when they were published, and the
// publisher's hints. A web page's new article is a change of the page,
// whose date (the page's own publication date) says nothing about when it
// changed.
func fetched(src model.FeedSource, res *sources.Result, arts []model.NewArticle) schedule.Observation {
	obs := schedule.Observation{Outcome: schedule.Fetched, NewItems: len(arts), Hints: res.Hints}
	if src.SourceType == model.SourceWeb {
		return obs
	}
	obs.Listed = len(res.Items) + res.Unchanged
	obs.Published = make([]time.Time, len(arts))
	for i, a := range arts {
		if a.Article.PublishedAt != nil {
			obs.Published[i] = *a.Article.PublishedAt
		}
	}
	return obs
}

// maxHintURL bounds the hub and topic URLs kept from a feed: a longer one
// is dropped, not cut.
const maxHintURL = 2048

// webSubLinks are the hub and topic a fetched feed advertised, to store
// for the WebSub subscriber ("" clears what an earlier fetch found).
func webSubLinks(h sources.Hints) (hub, self *string) {
	var first string
	if len(h.Hubs) > 0 && len(h.Hubs[0]) <= maxHintURL {
		first = h.Hubs[0]
	}
	topic := h.Self
	if len(topic) > maxHintURL {
		topic = ""
	}
	return &first, &topic
}

// failure turns a failed fetch into the source's bookkeeping and what the
// policy learns from it. What counts as the source's own failure is
// deliberate: rate limits, open circuit breakers and robots.txt delays
// defer the source without counting; 410 Gone pauses it at once; a host
// the address policy refuses is a configuration matter, recorded as such
// (the message names the setting that allows it) and polled again at its
// plain interval, never backed off.
func failure(src model.FeedSource, err error) (model.SourceUpdate, schedule.Observation) {
	msg := err.Error()
	var fe *sources.FetchError
	errors.As(err, &fe)
	var retryAfter time.Time
	if fe != nil {
		retryAfter = fe.RetryAfter
	}
	switch sources.KindOf(err) {
	case sources.KindRateLimited, sources.KindDeferred:
		return model.SourceUpdate{Status: model.StatusDeferred, Error: msg},
			schedule.Observation{Outcome: schedule.Deferred, RetryAfter: retryAfter, Cause: deferralCause(err)}
	case sources.KindGone:
		return model.SourceUpdate{Status: model.StatusGone, Error: msg + " (source deactivated)", Deactivate: true},
			schedule.Observation{Outcome: schedule.Skipped}
	case sources.KindNotSupported:
		return model.SourceUpdate{Status: model.StatusNotSupported, Error: msg},
			schedule.Observation{Outcome: schedule.Skipped}
	case sources.KindRefused:
		return model.SourceUpdate{Status: model.StatusRefused,
				Error: "the address policy refused this source (configuration, not a failure of the source): " + msg},
			schedule.Observation{Outcome: schedule.Skipped}
	}
	return model.SourceUpdate{Status: model.StatusError, Error: msg, Failed: true},
		schedule.Observation{Outcome: schedule.Failed, Failures: src.ConsecutiveFailures + 1, RetryAfter: retryAfter}
}

// deferralCause names why a fetch was deferred, for the next poll reason.
func deferralCause(err error) string {
	if sources.KindOf(err) == sources.KindRateLimited {
		return "rate limited"
	}
	switch msg := err.Error(); {
	case strings.HasPrefix(msg, "circuit open"):
		return "circuit open"
	case strings.HasPrefix(msg, "circuit half-open"):
		return "circuit half-open"
	case strings.HasPrefix(msg, "robots.txt"):
		return "robots.txt crawl-delay"
	case strings.HasPrefix(msg, "rate limited"):
		return "rate limited"
	}
	return ""
}
