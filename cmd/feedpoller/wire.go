package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/web"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/websub"
)

// app is the wired daemon: every package built from one Config.
type app struct {
	cfg       Config
	log       *slog.Logger
	store     *store.Store
	fetch     *fetch.Client
	rss       *rss.Fetcher
	web       *web.Fetcher
	firecrawl *firecrawl.Client
	poller    *poller.Poller
	svc       *service.Service
	registry  *prometheus.Registry
	// hooks sends webhook deliveries from the outbox; serve runs it.
	hooks  *webhooks.Worker
	sender *webhooks.Sender
	// websub is nil unless public_url is set.
	websub *websub.Subscriber
}

// newLogger logs to w (the command's standard error) at the configured
// level and format.
func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// openStore connects with the configured pool and migrates; it returns
// the migration versions it applied. Wiring chatter goes to log at level:
// info for serve, debug for one-shot commands, whose output is their own.
func openStore(ctx context.Context, cfg Config, log *slog.Logger, level slog.Level) (*store.Store, []int, error) {
	dialect, dsn, err := store.ParseURL(cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	opts := cfg.poolOptions(dialect)
	opts.DeliveryPayload = webhooks.DeliveryPayload
	st, err := store.OpenWith(ctx, cfg.DatabaseURL, opts)
	if err != nil {
		return nil, nil, err
	}
	applied, err := st.Migrate(ctx)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	if len(applied) > 0 {
		log.Log(ctx, level, "database migrated", "dialect", st.Dialect(), "versions", applied)
	}
	pool := st.PoolStats()
	log.Log(ctx, level, "database connected", "dialect", st.Dialect(), "database", store.RedactURL(dsn),
		"max_open_conns", pool.MaxOpenConnections)
	return st, applied, nil
}

// wire builds the whole daemon; level is that of its wiring chatter (see
// openStore).
func wire(ctx context.Context, cfg Config, log *slog.Logger, level slog.Level) (*app, error) {
	useFC, err := cfg.useFirecrawl()
	if err != nil {
		return nil, err
	}
	st, _, err := openStore(ctx, cfg, log, level)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, store: st, registry: prometheus.NewRegistry()}
	clock, err := schedulingClock()
	if err != nil {
		st.Close()
		return nil, err
	}
	// go_sql_* shows the pool at work: connections open and in use, waits,
	// and connections closed for being idle (churn, should it come back).
	a.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(st.DB().DB, "feedpoller"))
	opts := cfg.options()
	fo := opts.Fetch
	fo.Logger, fo.Now = log, clock
	if err := fo.Check(); err != nil {
		st.Close()
		return nil, err
	}
	a.fetch = fetch.New(fo)
	a.rss = &rss.Fetcher{Client: a.fetch, MaxItems: cfg.Fetch.MaxItems, Now: clock, Unchanged: rss.NewUnchanged()}
	a.web = &web.Fetcher{Client: a.fetch, RespectRobots: cfg.Fetch.RespectRobots, Log: log}
	if useFC {
		// Firecrawl fetches whatever it is handed: hold it to the native
		// fetcher's address policy (private networks, the allow list).
		fc := opts.Firecrawl
		fc.Log, fc.Policy = log, a.fetch.Policy()
		a.firecrawl, err = firecrawl.New(fc)
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("firecrawl: %w", err)
		}
		a.web.Firecrawl = a.firecrawl
		log.Log(ctx, level, "web sources fetched through Firecrawl",
			"api_url", store.RedactURL(orDefault(cfg.Firecrawl.APIURL, "https://api.firecrawl.dev")))
	} else {
		msg := "web sources fetched by the native fetcher (Firecrawl not configured)"
		if cfg.Web.Fetcher == "firecrawl" {
			msg = "web.fetcher is firecrawl but FIRECRAWL_API_KEY is not set: using the native fetcher (production refuses this)"
		}
		log.Log(ctx, level, msg, "env", cfg.Env)
	}
	metrics, err := poller.NewMetrics(a.registry)
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := a.wireWebhooks(opts, log); err != nil {
		st.Close()
		return nil, err
	}
	po := opts.Poller
	po.Store, po.Metrics, po.Log = wakingStore{st, a.hooks.Wake}, metrics, log
	po.Clock = clock
	po.Fetchers = map[string]poller.Fetcher{model.SourceRSS: a.rss, model.SourceWeb: a.web}
	if cfg.Poller.FetchArticles {
		po.Pipeline.Pages = a.fetch
	}
	if a.firecrawl != nil {
		po.Pipeline.Render = a.firecrawl
	}
	a.poller, err = poller.New(po)
	if err != nil {
		st.Close()
		return nil, err
	}
	var subs service.Subscriptions
	if cfg.PublicURL != "" {
		if a.websub, err = newSubscriber(opts.WebSub, a, log); err != nil {
			st.Close()
			return nil, err
		}
		subs = a.websub
	}
	a.svc, err = newService(cfg, st, validator{a.rss, a.web}, a.poller, a.fetch.Policy())
	if err != nil {
		st.Close()
		return nil, err
	}
	a.svc.SetSubscriptions(subs)
	return a, nil
}

// newService builds the source service every command and the API go
// through, with the configured defaults; validator and poller may be nil
// for commands that neither fetch nor poll. policy checks webhook URLs.
func newService(cfg Config, st *store.Store, v service.Validator, p service.Poller, policy *fetch.Policy) (*service.Service, error) {
	opts := cfg.options().Service
	opts.Store, opts.Validator, opts.Poller, opts.Digests = st, v, p, st
	opts.Webhooks, opts.AddressPolicy, opts.APITokens = st, policy, st
	return service.New(opts)
}

// wireWebhooks builds the delivery worker over the store's outbox, its
// sender dialling through the fetcher's address policy, and registers
// its metrics.
func (a *app) wireWebhooks(opts packageOptions, log *slog.Logger) error {
	var err error
	// The User-Agent is the documented one (webhooks.DefaultUserAgent):
	// receivers may match it, so it names the delivery format's version,
	// not the binary's.
	so := opts.Sender
	so.Policy = a.fetch.Policy()
	if a.sender, err = webhooks.NewSender(so); err != nil {
		return err
	}
	wo := opts.Webhooks
	wo.Outbox, wo.Poster, wo.Metrics, wo.Log = a.store.Outbox(), a.sender, webhooks.NewMetrics(a.registry), log
	a.hooks, err = webhooks.NewWorker(wo)
	return err
}

// wakingStore is the store as the poller sees it: a save that queued
// webhook deliveries wakes the worker, so they go out at once rather
// than at its next look.
type wakingStore struct {
	*store.Store
	wake func()
}

func (w wakingStore) SavePoll(ctx context.Context, p model.PollSave) (model.SaveCounts, error) {
	return w.woken(w.Store.SavePoll(ctx, p))
}

// SavePush wakes the worker as SavePoll does: pushed items are promoted
// like polled ones.
func (w wakingStore) SavePush(ctx context.Context, p model.PushSave) (model.SaveCounts, error) {
	return w.woken(w.Store.SavePush(ctx, p))
}

func (w wakingStore) woken(c model.SaveCounts, err error) (model.SaveCounts, error) {
	if err == nil && c.Deliveries > 0 {
		w.wake()
	}
	return c, err
}

// newSubscriber builds the WebSub subscriber: its requests to hubs dial
// through the fetcher's address policy, its pushes go through the poller's
// pipeline.
func newSubscriber(opts websub.Options, a *app, log *slog.Logger) (*websub.Subscriber, error) {
	m, err := websub.NewMetrics(a.registry)
	if err != nil {
		return nil, err
	}
	opts.Store, opts.Pusher, opts.Metrics, opts.Log = a.store, a.poller, m, log
	// Deliveries and polls of a source share what they settled.
	opts.Unchanged = a.rss.Unchanged
	opts.Client = &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{DialContext: a.fetch.Policy().DialContext, TLSHandshakeTimeout: 10 * time.Second,
			ResponseHeaderTimeout: 20 * time.Second, MaxIdleConnsPerHost: 2}}
	return websub.New(opts)
}

func (a *app) Close() { a.store.Close() }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
