// Package poller schedules polls (cron tick, leased claiming, one worker
// pool) and runs each poll: fetch, the per-item pipeline (package
// pipeline), one save, and the source's bookkeeping (outcome, next poll).
// docs/architecture.md tells the whole path of a poll.
package poller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller/pipeline"
	"github.com/feedpoller/feedpoller/poller/schedule"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/robfig/cron/v3"
)

// Fetcher fetches one source type (sources/rss, sources/web).
type Fetcher interface {
	Fetch(ctx context.Context, req sources.Request) (*sources.Result, error)
}

// Store is what the poller needs of the database: claiming and giving back
// sources, saving a poll, and what the pipeline reads (known articles,
// workspace profiles). *store.Store satisfies it.
type Store interface {
	CountDue(ctx context.Context) (int, error)
	ClaimDue(ctx context.Context, owner string, limit int, lease time.Duration) ([]model.FeedSource, error)
	ClaimSource(ctx context.Context, workspaceID, id int64, owner string, lease time.Duration) (*model.FeedSource, error)
	ReleaseLeases(ctx context.Context, owner string, ids []int64) error
	SavePoll(ctx context.Context, p model.PollSave) (model.SaveCounts, error)
	SavePush(ctx context.Context, p model.PushSave) (model.SaveCounts, error)
	pipeline.ArticleLookup
	pipeline.Workspaces
}

// Defaults of Options' zero fields; the scheduling bounds' are
// poller/schedule's, the per-item limits' poller/pipeline's.
const (
	DefaultSchedule           = "@every 1m"
	DefaultWorkers            = 8
	DefaultBatchSize          = 100
	DefaultLease              = 10 * time.Minute
	DefaultShutdownGrace      = 30 * time.Second
	DefaultJitter             = 0.1
	DefaultUnconditionalEvery = 24 * time.Hour
)

// Options configures a Poller. A zero field takes its default; where
// "none" is a setting of its own, a negative value says it.
type Options struct {
	// Store is the database; required.
	Store Store
	// Fetchers by source type; a type with none is recorded as not supported.
	Fetchers map[string]Fetcher
	// Pipeline configures the per-item pipeline: the article-page and
	// render fetchers, the word and page limits, the Markdown cap, the
	// story options. The poller gives it Store for its lookups and Log.
	Pipeline pipeline.Options
	// Schedule is the cron spec of the tick (default @every 1m).
	Schedule string
	// Workers bounds polls in flight (default 8).
	Workers int
	// BatchSize is how many sources one claim takes (default 100).
	BatchSize int
	// Lease is how long a claimed source stays ours before another
	// replica may take it (default 10m). It also bounds a poll: fetching
	// stops a fifth of the lease (at most 30s) before it ends, and a poll
	// saved after its lease ended is discarded, so no source is ever
	// polled twice at once.
	Lease time.Duration
	// ShutdownGrace is how long in-flight polls may finish after a stop
	// signal (default 30s; negative: they are cancelled at once).
	ShutdownGrace time.Duration
	// Jitter spreads next polls by up to this share of the interval, at
	// most 1 (default 0.1; negative: none).
	Jitter float64
	// MaxBackoff caps the failure backoff (default 24h).
	MaxBackoff time.Duration
	// Floor and Ceiling bound where an adaptive source's next poll, or a
	// publisher's hint, may place it: no hint floods or stops a source
	// (defaults 5m and 24h).
	Floor, Ceiling time.Duration
	// Safety is how often a source whose items arrive by WebSub push is
	// still polled (default 24h).
	Safety time.Duration
	// Target is the detection latency the adaptive interval aims at for
	// busy sources; Balance is how much waiting beyond it one request is
	// worth (docs/scheduling.md; defaults 25m and 30m).
	Target, Balance time.Duration
	// UnconditionalEvery is how often a source is fetched without
	// validators (default 24h).
	UnconditionalEvery time.Duration
	// Owner names this daemon in leases (default host-pid-random).
	Owner string
	// Metrics default to collectors registered nowhere.
	Metrics *Metrics
	// Log defaults to slog.Default().
	Log *slog.Logger
	// Clock dates each poll's scheduling decision (nil: time.Now). The
	// decision depends on the time of day (skipHours, busy hours), so
	// tests set it to check every hour rather than the one they run at.
	Clock func() time.Time
}

// DefaultOptions are the poller's defaults, the pipeline's included,
// without its collaborators: the values config.yaml documents.
func DefaultOptions() Options {
	o := Options{}.withDefaults()
	o.Pipeline = pipeline.DefaultOptions()
	return o
}

// withDefaults fills the zero fields; a negative one keeps meaning none.
func (o Options) withDefaults() Options {
	if o.Schedule == "" {
		o.Schedule = DefaultSchedule
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	if o.ShutdownGrace == 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.Jitter == 0 {
		o.Jitter = DefaultJitter
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = schedule.DefaultMaxBackoff
	}
	if o.Floor == 0 {
		o.Floor = schedule.DefaultFloor
	}
	if o.Ceiling == 0 {
		o.Ceiling = schedule.DefaultCeiling
	}
	if o.Safety == 0 {
		o.Safety = schedule.DefaultSafety
	}
	if o.Target == 0 {
		o.Target = schedule.DefaultTarget
	}
	if o.Balance == 0 {
		o.Balance = schedule.DefaultBalance
	}
	if o.UnconditionalEvery == 0 {
		o.UnconditionalEvery = DefaultUnconditionalEvery
	}
	return o
}

// check names every field New cannot work with.
func (o Options) check() []string {
	var errs []string
	if o.Store == nil {
		errs = append(errs, "a store is required")
	}
	for _, f := range []struct {
		name string
		val  int64
	}{{"Workers", int64(o.Workers)}, {"BatchSize", int64(o.BatchSize)}, {"Lease", int64(o.Lease)},
		{"MaxBackoff", int64(o.MaxBackoff)}, {"UnconditionalEvery", int64(o.UnconditionalEvery)},
		{"Floor", int64(o.Floor)}, {"Ceiling", int64(o.Ceiling)}, {"Safety", int64(o.Safety)},
		{"Target", int64(o.Target)}, {"Balance", int64(o.Balance)}} {
		if f.val < 0 {
			errs = append(errs, fmt.Sprintf("%s %d is negative", f.name, f.val))
		}
	}
	if o.Ceiling < o.Floor {
		errs = append(errs, fmt.Sprintf("Ceiling %s is below Floor %s", o.Ceiling, o.Floor))
	}
	if o.Target > o.Ceiling {
		errs = append(errs, fmt.Sprintf("Target %s is above Ceiling %s", o.Target, o.Ceiling))
	}
	if !(o.Jitter <= 1) { // NaN too
		errs = append(errs, fmt.Sprintf("Jitter %v is above 1", o.Jitter))
	}
	return errs
}

// Poller runs polls.
type Poller struct {
	opts     Options
	schedule cron.Schedule
	store    Store
	pipeline *pipeline.Pipeline
	log      *slog.Logger
	metrics  *Metrics
	outage   *outageLog
}

// profileTTL is how long a workspace's compiled profile is reused: an edit
// over the API takes effect within it.
const profileTTL = 30 * time.Second

// New fills in the defaults of opts and builds the poller; it refuses
// what it cannot work with, naming the field.
func New(opts Options) (*Poller, error) {
	opts = opts.withDefaults()
	errs := opts.check()
	schedule, err := cron.ParseStandard(opts.Schedule)
	if err != nil {
		errs = append(errs, fmt.Sprintf("Schedule %q: %v", opts.Schedule, err))
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	var pl *pipeline.Pipeline
	if opts.Store != nil {
		po := opts.Pipeline
		po.Lookup, po.Profiles = opts.Store, &pipeline.ProfileCache{Workspaces: opts.Store, TTL: profileTTL}
		po.PlaceStories, po.Log = true, opts.Log
		if pl, err = pipeline.New(po); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("poller: %s", strings.Join(errs, "; "))
	}
	if opts.Owner == "" {
		opts.Owner = defaultOwner()
	}
	if opts.Metrics == nil {
		if opts.Metrics, err = NewMetrics(nil); err != nil {
			return nil, err
		}
	}
	return &Poller{
		opts: opts, schedule: schedule, store: opts.Store, pipeline: pl, log: opts.Log, metrics: opts.Metrics,
		outage: newOutageLog(opts.Log, time.Minute),
	}, nil
}

// Owner is the name this poller leases sources under.
func (p *Poller) Owner() string { return p.opts.Owner }

func defaultOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}
