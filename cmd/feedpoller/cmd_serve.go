package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/api"
	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/console"
	"github.com/feedpoller/feedpoller/mcp"
)

const serveAbout = `Runs the daemon: the scheduler polls due sources on its schedule, and the REST API
(/api/intelligence/…), the web console (/ui/), /healthz, /readyz, /metrics and
/openapi.yaml are served on the listen address until SIGINT or SIGTERM.

The configuration comes from config.yaml in the working directory (or --config FILE /
FEEDPOLLER_CONFIG) and FEEDPOLLER_* environment variables; 'feedpoller config' prints
the effective one. The main variables:

  FEEDPOLLER_LISTEN          API address (default 127.0.0.1:8080; --listen overrides it)
  FEEDPOLLER_DATABASE_URL    postgres://USER:PASSWORD@HOST/DB, sqlite:PATH or a file path
                             (default: SQLite data/feedpoller.db)
  FEEDPOLLER_ADMIN_TOKEN     admin bearer token; without it one is generated at first start
                             and written to admin-token in the data directory (mode 0600)
  FEEDPOLLER_POLLER_WORKERS  polls in flight (default 8)
  FEEDPOLLER_POLLER_SCHEDULE scheduler tick (default @every 1m)
  FEEDPOLLER_ENV             production refuses to start without FIRECRAWL_API_KEY unless
                             FEEDPOLLER_WEB_FETCHER=native
  FIRECRAWL_API_KEY          Firecrawl key for web sources
  FEEDPOLLER_PUBLIC_URL      where WebSub hubs reach the listener (default empty: no
                             WebSub subscriptions, every source is polled)
  FEEDPOLLER_LOG_LEVEL       debug, info, warn or error (default info)`

func runServe(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagsAbout(env, "serve", "serve [--listen ADDR]", serveAbout)
	listen := fs.String("listen", "", "API address, overriding FEEDPOLLER_LISTEN and listen in config.yaml")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := env.config()
	if err != nil {
		return err
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	log := newLogger(cfg, env.stderr)
	a, err := wire(ctx, cfg, log, slog.LevelInfo)
	if err != nil {
		return err
	}
	defer a.Close()

	tokenFile, err := adminTokenFile(cfg)
	if err != nil {
		return err
	}
	change, err := auth.EnsureAdminToken(ctx, a.store, cfg.AdminToken, func(token string) error {
		return writeSecretFile(tokenFile, token)
	})
	if err != nil {
		return err
	}
	switch {
	case change.Generated != "":
		// Only the path is printed: stdout ends up in container and service
		// logs, which are no place for a credential.
		fmt.Fprintf(env.stdout, "\nNo FEEDPOLLER_ADMIN_TOKEN was configured, so an admin token was generated and written to\n\n"+
			"    %s\n\n(readable by this user only; only its hash is stored). Use it as\n\n"+
			"    curl -H \"Authorization: Bearer $(cat %s)\" http://%s/api/intelligence/workspaces\n\n",
			tokenFile, tokenFile, cfg.Listen)
	case change.Revoked > 0:
		if err := removeStaleTokenFile(tokenFile); err != nil {
			log.Warn("revoked admin token", "err", err)
		}
		log.Info("FEEDPOLLER_ADMIN_TOKEN is set: the admin token generated at first start is revoked", "revoked", change.Revoked)
	}
	if err := applyReliabilityTiers(ctx, cfg, a.store, log); err != nil {
		return err
	}
	go pruneStoryTerms(ctx, a.store, cfg.Stories.Window, pruneEvery, log)
	go indexSearchText(ctx, a.store, pruneEvery, log)
	mcpSrv, err := mcp.New(mcp.Options{Store: a.store, Service: a.svc, AdminToken: cfg.AdminToken, Version: Version, Log: log,
		AllowedHosts: mcpAllowedHosts(cfg)})
	if err != nil {
		return err
	}
	con, err := console.New(console.Options{Store: a.store, Service: a.svc, AdminToken: cfg.AdminToken, Log: log})
	if err != nil {
		return err
	}
	apiOpts := api.Options{Store: a.store, Service: a.svc, Gatherer: a.registry, AdminToken: cfg.AdminToken, Log: log,
		MCP: mcpSrv.Handler(), Console: con.Handler()}
	if a.websub != nil {
		apiOpts.WebSub = a.websub
	}
	srv, err := api.New(apiOpts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (FEEDPOLLER_LISTEN): %w", cfg.Listen, err)
	}
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 120 * time.Second, IdleTimeout: 120 * time.Second}
	log.Info("feedpoller serving", "version", Version, "listen", ln.Addr().String(), "database", a.store.Dialect(), "env", cfg.Env)

	httpErr := make(chan error, 1)
	go func() { httpErr <- httpSrv.Serve(ln) }()
	pollDone := make(chan error, 1)
	go func() { pollDone <- a.poller.Run(ctx) }()
	// The webhook worker stops after the poller: deliveries the draining
	// polls queue still go out, and sends in flight are recorded.
	stopHooks := a.runWebhooks(ctx)
	defer stopHooks()
	if a.websub != nil {
		go a.websub.Run(ctx)
	}

	select {
	case err := <-httpErr:
		return fmt.Errorf("http server: %w", err)
	case err := <-pollDone:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		err := <-pollDone // stops claiming, drains in-flight polls
		if err != nil {
			log.Error("poller stop", "err", err)
		}
	}
	stopHooks()
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http shutdown: %w", err)
	}
	return nil
}

// runWebhooks runs the webhook worker until the returned stop is called
// (more calls are no-ops); stop waits for the sends in flight to be
// recorded, then closes the sender's idle connections.
func (a *app) runWebhooks(ctx context.Context) (stop func()) {
	hookCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.hooks.Run(hookCtx) // returns only when hookCtx ends
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			a.sender.CloseIdleConnections()
			a.log.Info("webhook worker stopped")
		})
	}
}

// mcpAllowedHosts are the Host names /mcp answers on a loopback listener
// besides the loopback ones: mcp_allowed_hosts and the host of
// public_url, where a reverse proxy forwards.
func mcpAllowedHosts(cfg Config) []string {
	hosts := append([]string{}, cfg.MCPAllowedHosts...)
	if u, err := url.Parse(cfg.PublicURL); err == nil && u.Host != "" {
		hosts = append(hosts, u.Host)
	}
	return hosts
}
