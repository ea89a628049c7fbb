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

	"github.com/feedpoller/feedpoller/analysis/stories"
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

// Options configures a Poller. Start from DefaultOptions: New refuses
// values it cannot work with rather than replacing them.
type Options struct {
	Store Store
	// Fetchers by source type; a type with none is recorded as not supported.
	Fetchers map[string]Fetcher
	// Pages fetches article pages (cascade tier 2); nil skips that tier.
	Pages pipeline.PageFetcher
	// Render fetches a page through a JavaScript-capable renderer
	// (Firecrawl); nil skips that tier.
	Render pipeline.PageFetcher
	// Schedule is the cron spec of the tick.
	Schedule string
	// Workers bounds polls in flight.
	Workers int
	// BatchSize is how many sources one claim takes.
	BatchSize int
	// Lease is how long a claimed source stays ours before another
	// replica may take it. It also bounds a poll: fetching stops a fifth
	// of the lease (at most 30s) before it ends, and a poll saved after
	// its lease ended is discarded, so no source is ever polled twice at
	// once.
	Lease time.Duration
	// ShutdownGrace is how long in-flight polls may finish after a stop
	// signal (0: they are cancelled at once).
	ShutdownGrace time.Duration
	// MinWords is what a cascade tier must reach to be accepted.
	MinWords int
	// MaxArticleFetches bounds tier-2 page fetches per poll (0: none).
	MaxArticleFetches int
	// Jitter spreads next polls by up to this share of the interval
	// (0 to 1).
	Jitter float64
	// MaxBackoff caps the failure backoff.
	MaxBackoff time.Duration
	// Floor and Ceiling bound where an adaptive source's next poll, or a
	// publisher's hint, may place it: no hint floods or stops a source.
	Floor, Ceiling time.Duration
	// Safety is how often a source whose items arrive by WebSub push is
	// still polled.
	Safety time.Duration
	// Target is the detection latency the adaptive interval aims at for
	// busy sources; Balance is how much waiting beyond it one request is
	// worth (docs/scheduling.md).
	Target, Balance time.Duration
	// UnconditionalEvery is how often a source is fetched without
	// validators.
	UnconditionalEvery time.Duration
	// MaxMarkdownBytes caps the Markdown stored per article (and per
	// summary); longer content is cut at a line boundary and ends with a
	// marker saying so.
	MaxMarkdownBytes int
	// Owner names this daemon in leases (default host-pid-random).
	Owner string
	// Metrics default to collectors registered nowhere.
	Metrics *Metrics
	// Log defaults to slog.Default().
	Log *slog.Logger
	// Stories tune story grouping (zero values: the stories package's
	// defaults).
	Stories stories.GroupOptions
	// Clock dates each poll's scheduling decision (nil: time.Now). The
	// decision depends on the time of day (skipHours, busy hours), so
	// tests set it to check every hour rather than the one they run at.
	Clock func() time.Time
}

// DefaultOptions are the poller's defaults: the values config.yaml
// documents, from which the daemon's built-in configuration is built.
// Store and Fetchers have none.
func DefaultOptions() Options {
	return Options{
		Schedule:           "@every 1m",
		Workers:            8,
		BatchSize:          100,
		Lease:              10 * time.Minute,
		ShutdownGrace:      30 * time.Second,
		MinWords:           50,
		MaxArticleFetches:  10,
		Jitter:             0.1,
		MaxBackoff:         24 * time.Hour,
		Floor:              schedule.DefaultFloor,
		Ceiling:            schedule.DefaultCeiling,
		Safety:             schedule.DefaultSafety,
		Target:             schedule.DefaultTarget,
		Balance:            schedule.DefaultBalance,
		UnconditionalEvery: 24 * time.Hour,
		MaxMarkdownBytes:   1 << 20,
	}
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

// New checks opts and builds the poller. Every value must be one it can
// work with: none is silently replaced by a default (see DefaultOptions).
// Only Owner, Metrics, Log and Clock are filled when unset.
func New(opts Options) (*Poller, error) {
	var errs []string
	if opts.Store == nil {
		errs = append(errs, "a store is required")
	}
	schedule, err := cron.ParseStandard(opts.Schedule)
	if err != nil {
		errs = append(errs, fmt.Sprintf("Schedule %q: %v", opts.Schedule, err))
	}
	positive := []struct {
		name string
		val  int64
	}{{"Workers", int64(opts.Workers)}, {"BatchSize", int64(opts.BatchSize)}, {"Lease", int64(opts.Lease)},
		{"MaxBackoff", int64(opts.MaxBackoff)}, {"UnconditionalEvery", int64(opts.UnconditionalEvery)},
		{"Floor", int64(opts.Floor)}, {"Ceiling", int64(opts.Ceiling)}, {"Safety", int64(opts.Safety)},
		{"Target", int64(opts.Target)}, {"Balance", int64(opts.Balance)}}
	for _, o := range positive {
		if o.val <= 0 {
			errs = append(errs, o.name+" must be more than 0")
		}
	}
	if opts.Floor > 0 && opts.Ceiling < opts.Floor {
		errs = append(errs, fmt.Sprintf("Ceiling %s is below Floor %s", opts.Ceiling, opts.Floor))
	}
	if opts.Ceiling > 0 && opts.Target > opts.Ceiling {
		errs = append(errs, fmt.Sprintf("Target %s is above Ceiling %s", opts.Target, opts.Ceiling))
	}
	if opts.ShutdownGrace < 0 {
		errs = append(errs, fmt.Sprintf("ShutdownGrace %s is negative", opts.ShutdownGrace))
	}
	if !(opts.Jitter >= 0 && opts.Jitter <= 1) { // NaN too
		errs = append(errs, fmt.Sprintf("Jitter %v must be between 0 and 1", opts.Jitter))
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	var pl *pipeline.Pipeline
	if opts.Store != nil {
		pl, err = pipeline.New(pipeline.Options{
			Lookup: opts.Store, Profiles: &pipeline.ProfileCache{Workspaces: opts.Store, TTL: profileTTL},
			Pages: opts.Pages, Render: opts.Render, MinWords: opts.MinWords, MaxArticleFetches: opts.MaxArticleFetches,
			MaxMarkdownBytes: opts.MaxMarkdownBytes, Log: opts.Log,
			PlaceStories: true, StoryOptions: opts.Stories,
		})
		if err != nil {
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
