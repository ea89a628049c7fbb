package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// serve listens, prints the base URL and serves the farm until ctx ends.
func serve(ctx context.Context, cfg config, stdout io.Writer, logger *slog.Logger) error {
	if !cfg.allowExternal {
		if err := checkLoopback(ctx, cfg.listen); err != nil {
			return err
		}
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.listen, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	// Belt and braces: what was actually bound must be loopback too.
	if !cfg.allowExternal && !addr.IP.IsLoopback() {
		ln.Close()
		return fmt.Errorf("listen on %s: bound %s, which is not loopback (use -allow-external)", cfg.listen, addr)
	}
	farm := feedfarm.New(cfg.opts)
	srv := &http.Server{
		Handler:           farm.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	base := "http://" + addr.String()
	if _, err := fmt.Fprintln(stdout, base); err != nil {
		ln.Close()
		return fmt.Errorf("print base URL: %w", err)
	}
	o := farm.Options()
	logger.Info("feedfarm serving", "base", base, "feeds", o.Feeds, "items", o.ItemsPerFeed,
		"body", o.BodyBytes, "change", o.ChangeShare, "latency", o.Latency, "format", o.Format, "seed", o.Seed)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve on %s: %w", addr, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shut down: %w", err)
	}
	s := farm.Stats()
	logger.Info("feedfarm stopped", "feed_requests", s.FeedRequests, "ok", s.OK, "not_modified", s.NotModified, "item_requests", s.ItemRequests)
	return nil
}

// checkLoopback refuses listen addresses that would expose the farm beyond
// this machine: an empty or unspecified host means every interface, and a
// name must resolve to loopback addresses only.
func checkLoopback(ctx context.Context, listen string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", listen, err)
	}
	if host == "" {
		return fmt.Errorf("listen address %q listens on every interface; give a loopback host such as 127.0.0.1 or pass -allow-external", listen)
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("listen address %q is not loopback; pass -allow-external to serve beyond this machine", listen)
		}
		return nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("resolve listen host %q: %w", host, err)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return fmt.Errorf("listen host %q resolves to %s, which is not loopback; pass -allow-external to serve beyond this machine", host, ip.IP)
		}
	}
	return nil
}
