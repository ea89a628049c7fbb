package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/sources/extract"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/migrations"
)

func runMigrate(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "migrate", "migrate")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	st, applied, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	latest, err := migrations.Latest(st.Dialect())
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		fmt.Fprintf(env.stdout, "database (%s) migrated to schema version %d (applied %s)\n", st.Dialect(), latest, versions(applied))
	} else {
		fmt.Fprintf(env.stdout, "database (%s) is at the latest schema version, %d\n", st.Dialect(), latest)
	}
	// serve does this in the background; migrate finishes it first.
	n, err := st.IndexSearchText(ctx)
	if n > 0 {
		fmt.Fprintf(env.stdout, "search vectors computed for %d articles\n", n)
	}
	return err
}

func versions(vs []int) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ", ")
}

func runConfig(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "config", "config")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := env.config()
	if err != nil {
		return err
	}
	if strings.TrimSpace(cfg.DatabaseURL) == "" {
		// Show the database in use, not the empty setting that selects it.
		abs, err := filepath.Abs(store.DefaultSQLitePath)
		if err != nil {
			return fmt.Errorf("resolve the default database path: %w", err)
		}
		cfg.DatabaseURL = "sqlite:" + abs
	}
	out, err := cfg.redacted()
	if err != nil {
		return err
	}
	fmt.Fprint(env.stdout, out)
	return nil
}

func runVersion(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "version", "version")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "feedpoller %s\n", Version)
	return nil
}

func runExtract(ctx context.Context, env *cliEnv, args []string) error {
	fetchURL := func(ctx context.Context, u string) ([]byte, error) {
		cfg, err := env.config()
		if err != nil {
			return nil, err
		}
		c := fetch.New(fetch.Options{Timeout: cfg.Fetch.Timeout, MaxBodyBytes: cfg.Fetch.MaxBodyBytes,
			UserAgent: cfg.Fetch.UserAgent, AllowPrivateNetworks: cfg.Fetch.AllowPrivateNetworks, Allow: cfg.Fetch.Allow})
		resp, err := c.Get(ctx, fetch.Request{URL: u, Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"})
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
	if code := extract.Command(ctx, args, env.stdin, env.stdout, env.stderr, fetchURL); code != 0 {
		return exitCode(code)
	}
	return nil
}
