// Command feedfarm serves synthetic RSS and Atom feeds on a loopback address
// so that feed readers can be benchmarked against the same reproducible load.
//
//	feedfarm -listen 127.0.0.1:0 -feeds 1000 -items 20 -body 2048 -change 0.1 -latency 0
//
// The first line on stdout is the base URL (for example
// http://127.0.0.1:41234); feeds are at BASE/feed/{n}.xml, their list at
// BASE/_feeds, counters at BASE/_stats (POST BASE/_stats/reset zeroes them).
// It serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "feedfarm:", err)
		os.Exit(1)
	}
}

// run parses args, serves until ctx ends, and reports the base URL on
// stdout's first line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	return serve(ctx, cfg, stdout, logger)
}
