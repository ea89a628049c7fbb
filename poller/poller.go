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
	// replica may take it (default 10m). It also bounds a poll: fetching
	// stops a fifth of the lease (at most 30s) before it ends, and a poll
	// saved after its lease ended is discarded, so no source is ever
	// polled twice at once.
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
	// MaxMarkdownBytes caps the Markdown stored per article (and per
	// summary); longer content is cut at a line boundary and ends with a
	// marker saying so (default 1 MiB).
	MaxMarkdownBytes int
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
	if opts.MaxMarkdownBytes <= 0 {
		opts.MaxMarkdownBytes = DefaultMaxMarkdownBytes
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
		outage:   newOutageLog(opts.Log, time.Minute),
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
