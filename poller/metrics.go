package poller

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller/schedule"
)

// Metrics are the poller's Prometheus collectors.
type Metrics struct {
	Polls          *prometheus.CounterVec
	PollDuration   *prometheus.HistogramVec
	Items          *prometheus.CounterVec
	DueBacklog     prometheus.Gauge
	SchedulerLag   prometheus.Histogram
	InFlight       prometheus.Gauge
	DatabaseErrors prometheus.Counter
	// NextPolls counts next-poll decisions by the kind of rule that made
	// them (schedule.Kinds); every kind is there from the start, at 0.
	NextPolls *prometheus.CounterVec
	// SourcesFailing and SourcesDisabled count, by source type, the
	// sources whose last polls failed and those no longer polled
	// (inactive, or at the failure limit), at the last tick.
	SourcesFailing  *prometheus.GaugeVec
	SourcesDisabled *prometheus.GaugeVec
	// StoryPlacements counts what saves did with their new articles'
	// stories: articles that joined a story (stored or started by the
	// same save), stories started, stories merged into another, stored
	// articles moved to another story by re-examination, stories merged
	// by a rejoin after the save committed.
	StoryPlacements *prometheus.CounterVec
	// StoryFrequencyReads counts the placements' reads of document
	// frequencies on PostgreSQL by where they were answered from: the
	// process's checked copy or the table; StoryFrequencyCopyLoads the
	// copies read from the table. Loads that keep coming mean other
	// replicas save into the same big workspaces.
	StoryFrequencyReads     *prometheus.CounterVec
	StoryFrequencyCopyLoads prometheus.Counter
}

// NewMetrics creates the collectors and registers them on reg (nil: not
// registered, for tests that only read them). It fails when reg already
// has collectors of these names.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Polls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedpoller_polls_total", Help: "Polls by source type and outcome.",
		}, []string{"source_type", "outcome"}),
		PollDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "feedpoller_poll_duration_seconds", Help: "Wall time of one poll, fetch to commit.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"source_type"}),
		Items: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedpoller_items_total", Help: "Feed items by what became of them: new, duplicate, promoted; unchanged counts the duplicates left unparsed, byte for byte entries an earlier poll settled.",
		}, []string{"result"}),
		DueBacklog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "feedpoller_due_sources", Help: "Sources due but not yet claimed, at the last tick.",
		}),
		SchedulerLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "feedpoller_scheduler_lag_seconds", Help: "Time from a source's next_poll_at to the start of its poll.",
			Buckets: []float64{0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800},
		}),
		InFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "feedpoller_polls_in_flight", Help: "Polls running now.",
		}),
		DatabaseErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "feedpoller_database_errors_total", Help: "Scheduler and poll writes that failed on the database.",
		}),
		NextPolls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedpoller_next_poll_decisions_total",
			Help: "Next polls decided, by the kind of rule that placed them (fixed, adaptive, ttl, backoff, websub, ...).",
		}, []string{"kind"}),
		SourcesFailing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "feedpoller_sources_failing", Help: "Active sources whose last poll failed, below the failure limit, at the last tick.",
		}, []string{"source_type"}),
		SourcesDisabled: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "feedpoller_sources_disabled", Help: "Sources no longer polled (inactive, or at the failure limit), at the last tick.",
		}, []string{"source_type"}),
		StoryPlacements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedpoller_story_placements_total",
			Help: "Story placements of new articles: joined (an existing story), started (a new story), merged (stories folded into another), moved (stored articles re-examined into another story), rejoined (stories folded into another by a save that met another save, once both committed).",
		}, []string{"result"}),
		StoryFrequencyReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedpoller_story_frequency_reads_total",
			Help: "Placements' reads of document frequencies on PostgreSQL, by where they were answered from: copy (the process's copy of a big workspace's, checked against the table) or table.",
		}, []string{"from"}),
		StoryFrequencyCopyLoads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "feedpoller_story_frequency_copy_loads_total",
			Help: "Copies of a workspace's document frequencies read from the table (PostgreSQL): first reads, and reads again after other replicas' saves or prunes.",
		}),
	}
	for _, f := range []string{"copy", "table"} {
		m.StoryFrequencyReads.WithLabelValues(f)
	}
	for _, r := range []string{"joined", "started", "merged", "moved"} {
		m.StoryPlacements.WithLabelValues(r)
	}
	for _, k := range schedule.Kinds() {
		m.NextPolls.WithLabelValues(string(k))
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.Polls, m.PollDuration, m.Items, m.DueBacklog, m.SchedulerLag, m.InFlight,
		m.DatabaseErrors, m.NextPolls, m.SourcesFailing, m.SourcesDisabled, m.StoryPlacements, m.StoryFrequencyReads,
		m.StoryFrequencyCopyLoads} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register poller metrics: %w", err)
		}
	}
	return m, nil
}

// SourceHealthCounter is what a Store may offer to refresh the failure
// gauges at each tick; *store.Store does. A store without it leaves them
// unset.
type SourceHealthCounter interface {
	CountUnhealthySources(ctx context.Context) ([]model.SourceHealth, error)
}

// refreshSourceHealth sets the failure gauges from the store's counts,
// every source type at 0 unless counted. A failed count keeps the last
// values: the claim that follows reports the outage.
func (p *Poller) refreshSourceHealth(ctx context.Context) {
	c, ok := p.store.(SourceHealthCounter)
	if !ok {
		return
	}
	counts, err := c.CountUnhealthySources(ctx)
	if err != nil {
		return
	}
	failing := map[string]int{model.SourceRSS: 0, model.SourceWeb: 0, model.SourceAPI: 0}
	disabled := map[string]int{model.SourceRSS: 0, model.SourceWeb: 0, model.SourceAPI: 0}
	for _, h := range counts {
		failing[h.SourceType], disabled[h.SourceType] = h.Failing, h.Disabled
	}
	for t, n := range failing {
		p.metrics.SourcesFailing.WithLabelValues(t).Set(float64(n))
		p.metrics.SourcesDisabled.WithLabelValues(t).Set(float64(disabled[t]))
	}
}

// countItems adds what a poll or a push stored to the item counters.
func (m *Metrics) countItems(out model.PollOutcome) {
	m.Items.WithLabelValues("new").Add(float64(out.ItemsNew))
	m.Items.WithLabelValues("duplicate").Add(float64(out.ItemsDuplicate))
	m.Items.WithLabelValues("promoted").Add(float64(out.ItemsPromoted))
	m.Items.WithLabelValues("unchanged").Add(float64(out.ItemsUnchanged))
	m.StoryPlacements.WithLabelValues("joined").Add(float64(out.Stories.Joined))
	m.StoryPlacements.WithLabelValues("started").Add(float64(out.Stories.Started))
	m.StoryPlacements.WithLabelValues("merged").Add(float64(out.Stories.Merged))
	m.StoryPlacements.WithLabelValues("moved").Add(float64(out.Stories.Moved))
	m.StoryPlacements.WithLabelValues("rejoined").Add(float64(out.Stories.Rejoined))
	m.StoryFrequencyReads.WithLabelValues("copy").Add(float64(out.FreqReads.FromCopy))
	m.StoryFrequencyReads.WithLabelValues("table").Add(float64(out.FreqReads.FromTable))
	m.StoryFrequencyCopyLoads.Add(float64(out.FreqReads.CopyLoads))
}
