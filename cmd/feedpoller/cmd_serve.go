package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/feedpoller/feedpoller/api"
)

func runServe(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "serve", "serve")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := env.config()
	if err != nil {
		return err
	}
	log := newLogger(cfg)
	a, err := wire(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()

	generated, err := api.EnsureAdminToken(ctx, a.store, cfg.AdminToken)
	if err != nil {
		return err
	}
	if generated != "" {
		// Printed once, to the terminal only; the database keeps its hash.
		fmt.Fprintf(env.stdout, "\nNo FEEDPOLLER_ADMIN_TOKEN was configured, so an admin token was generated.\n"+
			"It is shown only this once; store it now:\n\n    %s\n\n", generated)
	}
	srv, err := api.New(api.Options{Store: a.store, Validator: validator{a.rss, a.web}, Poller: pollNower{a.poller},
		Gatherer: a.registry, AdminToken: cfg.AdminToken, Log: log,
		DefaultWebIntervalMinutes: cfg.Web.DefaultIntervalMinutes, DefaultRSSIntervalMinutes: 30})
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
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http shutdown: %w", err)
	}
	return nil
}
