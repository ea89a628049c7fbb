// Package poller schedules polls (cron tick, leased claiming, worker pool)
// and runs the per-poll pipeline: fetch, per-item dedup, extraction,
// relevance, storage and promotion, and the source's bookkeeping.
package poller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

// Fetcher fetches one source type (sources/rss, sources/web).
type Fetcher interface {
	Fetch(ctx context.Context, req sources.Request) (*sources.Result, error)
}

// PageFetcher gets an article page's HTML for the extraction cascade.
type PageFetcher interface {
	FetchPage(ctx context.Context, pageURL string) (html []byte, err error)
}

// Options configures a Poller. Zero values take the documented defaults.
type Options struct {
	Store *store.Store
	// Fetchers by source type; a type with none is recorded as not supported.
	Fetchers map[string]Fetcher
	// Pages fetches article pages (cascade tier 2); nil skips that tier.
	Pages PageFetcher
	// Render fetches a page through a JavaScript-capable renderer
	// (Firecrawl); nil skips that tier.
	Render PageFetcher
	// Schedule is the cron spec of the tick (default "@every 1m").
	Schedule string
	// Workers bounds polls in flight (default 8).
	Workers int
	// BatchSize is how many sources one claim takes (default 100).
	BatchSize int
	// Lease is how long a claimed source stays ours before another
	// replica may take it (default 10m).
	Lease time.Duration
	// ShutdownGrace is how long in-flight polls may finish after a stop
	// signal (default 30s).
	ShutdownGrace time.Duration
	// MinWords is what a cascade tier must reach to be accepted (default 50).
	MinWords int
	// MaxArticleFetches bounds tier-2 page fetches per poll (default 10).
	MaxArticleFetches int
	// Jitter spreads next polls by up to this share of the interval
	// (default 0.1).
	Jitter float64
	// MaxBackoff caps the failure backoff (default 24h).
	MaxBackoff time.Duration
	// UnconditionalEvery is how often a source is fetched without
	// validators (default 24h).
	UnconditionalEvery time.Duration
	// Owner names this daemon in leases (default host-pid-random).
	Owner   string
	Metrics *Metrics
	Log     *slog.Logger
}

// Poller runs polls.
type Poller struct {
	opts     Options
	store    *store.Store
	log      *slog.Logger
	metrics  *Metrics
	profiles *profileCache
	outage   *outageLog
}

// New checks options and fills defaults.
func New(opts Options) (*Poller, error) {
	if opts.Store == nil {
		return nil, fmt.Errorf("poller: a store is required")
	}
	if opts.Schedule == "" {
		opts.Schedule = "@every 1m"
	}
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	if opts.Lease <= 0 {
		opts.Lease = 10 * time.Minute
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = 30 * time.Second
	}
	if opts.MinWords <= 0 {
		opts.MinWords = 50
	}
	if opts.MaxArticleFetches <= 0 {
		opts.MaxArticleFetches = 10
	}
	if opts.Jitter < 0 || opts.Jitter > 1 {
		return nil, fmt.Errorf("poller: jitter %v must be between 0 and 1", opts.Jitter)
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 24 * time.Hour
	}
	if opts.UnconditionalEvery <= 0 {
		opts.UnconditionalEvery = 24 * time.Hour
	}
	if opts.Owner == "" {
		opts.Owner = defaultOwner()
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics(nil)
	}
	return &Poller{
		opts: opts, store: opts.Store, log: opts.Log, metrics: opts.Metrics,
		profiles: newProfileCache(opts.Store, 30*time.Second),
		outage:   &outageLog{log: opts.Log, every: time.Minute},
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

// outageLog logs database trouble once per interval, not once per source.
type outageLog struct {
	log   *slog.Logger
	every time.Duration
	mu    sync.Mutex
	last  time.Time
	count int
}

func (o *outageLog) report(what string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.count++
	if time.Since(o.last) < o.every {
		return
	}
	o.log.Error("database unavailable; polls will be redone when it returns", "during", what, "err", err,
		"failures_since_last_report", o.count)
	o.last, o.count = time.Now(), 0
}

func (o *outageLog) recovered() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.last.IsZero() {
		o.log.Info("database reachable again")
		o.last, o.count = time.Time{}, 0
	}
}
