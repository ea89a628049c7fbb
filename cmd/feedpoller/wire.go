package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/web"
	"github.com/feedpoller/feedpoller/store"
)

// app is the wired daemon: every package built from one Config.
type app struct {
	cfg       Config
	log       *slog.Logger
	store     *store.Store
	fetch     *fetch.Client
	rss       *rss.Fetcher
	web       *web.Poller
	firecrawl *firecrawl.Client
	poller    *poller.Poller
	registry  *prometheus.Registry
}

func newLogger(cfg Config) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// openStore connects and migrates.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (*store.Store, error) {
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	applied, err := st.Migrate(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	if len(applied) > 0 {
		log.Info("database migrated", "dialect", st.Dialect(), "versions", applied)
	}
	return st, nil
}

// wire builds the whole daemon.
func wire(ctx context.Context, cfg Config, log *slog.Logger) (*app, error) {
	useFC, err := cfg.useFirecrawl()
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, store: st, registry: prometheus.NewRegistry()}
	a.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	a.fetch = fetch.New(fetch.Options{
		Timeout: cfg.Fetch.Timeout, MaxBodyBytes: cfg.Fetch.MaxBodyBytes, UserAgent: cfg.Fetch.UserAgent,
		AllowPrivateNetworks: cfg.Fetch.AllowPrivateNetworks, Allow: cfg.Fetch.Allow, Attempts: cfg.Fetch.Attempts,
		PerDomainConcurrency: cfg.Fetch.PerDomainConcurrency, PerDomainGap: gapOption(cfg.Fetch.PerDomainGap), Logger: log,
	})
	a.rss = &rss.Fetcher{Client: a.fetch, MaxItems: cfg.Fetch.MaxItems}
	a.web = &web.Poller{Fetcher: a.fetch, RespectRobots: cfg.Fetch.RespectRobots, Log: log}
	if useFC {
		a.firecrawl, err = firecrawl.New(firecrawl.Options{APIKey: cfg.Firecrawl.APIKey, APIURL: cfg.Firecrawl.APIURL,
			Timeout: cfg.Firecrawl.Timeout, MaxBodyBytes: 20 << 20, Log: log})
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("firecrawl: %w", err)
		}
		a.web.Firecrawl = a.firecrawl
		log.Info("web sources fetched through Firecrawl", "api_url", orDefault(cfg.Firecrawl.APIURL, "https://api.firecrawl.dev"))
	} else {
		msg := "web sources fetched by the native fetcher (Firecrawl not configured)"
		if cfg.Web.Fetcher == "firecrawl" {
			msg = "web.fetcher is firecrawl but FIRECRAWL_API_KEY is not set: using the native fetcher (production refuses this)"
		}
		log.Info(msg, "env", cfg.Env)
	}
	opts := poller.Options{
		Store: st, Schedule: cfg.Poller.Schedule, Workers: cfg.Poller.Workers, BatchSize: cfg.Poller.BatchSize,
		Lease: cfg.Poller.Lease, ShutdownGrace: cfg.Poller.ShutdownGrace, Jitter: cfg.Poller.Jitter,
		MinWords: cfg.Poller.MinWords, MaxArticleFetches: cfg.Poller.MaxArticleFetches, MaxBackoff: cfg.Poller.MaxBackoff,
		MaxMarkdownBytes: cfg.Poller.MaxMarkdownBytes,
		Fetchers:         map[string]poller.Fetcher{store.SourceRSS: a.rss, store.SourceWeb: a.web},
		Metrics:          poller.NewMetrics(a.registry), Log: log,
	}
	if cfg.Poller.FetchArticles {
		opts.Pages = poller.HTTPPages{Client: a.fetch}
	}
	if a.firecrawl != nil {
		opts.Render = poller.FirecrawlPages{Client: a.firecrawl}
	}
	a.poller, err = poller.New(opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

func (a *app) Close() { a.store.Close() }

// gapOption maps the configured gap to the fetcher's convention, where 0
// means "default" and a negative value means "none".
func gapOption(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
