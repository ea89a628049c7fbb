// Command pollbench measures the real feedpoller daemon against the
// synthetic feed farm: for each database (SQLite, PostgreSQL) and each
// number of sources it starts a farm in this process, a fresh database
// and `feedpoller serve`, registers one source per feed, and runs rounds
// in which a set of sources becomes due at once:
//
//	first      changing feeds, first poll: all 20 items new
//	unchanged  unchanging feeds: 304 Not Modified
//	changed    changing feeds again: one new item, the rest known
//
// For every round it reports polls per second, the daemon's CPU seconds
// per 1 000 polls (and PostgreSQL's), the daemon's resident memory and
// peak, scheduler lag p50/p99 and rows written per second. With
// -replicas it runs 1, 2, … daemons side by side on one PostgreSQL
// database (real binaries, real leases) and reports how throughput and
// CPU per poll scale and whether any source was polled twice in a round,
// counted from poll_runs and from the farm's per-feed request counters.
// See bench/README.md for the figures and how to read them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/bench/internal/pgcluster"
	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/store"
)

type config struct {
	sizes     []int
	dbs       []string
	rounds    []string
	bin       string
	workers   int
	batchSize int
	perDomain int
	items     int
	body      int
	change    float64
	seed      int64
	timeout   time.Duration
	jsonOut   string
	keep      bool
	// pools are the PostgreSQL pool settings to compare, each run on its
	// own database and daemon: "default" (the daemon sizes the pool from
	// its workers) or "OPEN/IDLE".
	pools []poolSetting
	// replicas are the numbers of daemons to run side by side on one
	// PostgreSQL database, each on a fresh database.
	replicas []int
}

// poolSetting is one database pool configuration of the daemon.
type poolSetting struct {
	name       string
	open, idle int // 0: the daemon's default
}

func parsePools(s string) ([]poolSetting, error) {
	var out []poolSetting
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "default" {
			out = append(out, poolSetting{name: p})
			continue
		}
		o, i, ok := strings.Cut(p, "/")
		open, err1 := strconv.Atoi(o)
		idle, err2 := strconv.Atoi(i)
		if !ok || err1 != nil || err2 != nil || open <= 0 || idle <= 0 {
			return nil, fmt.Errorf("-pools %q: want default or OPEN/IDLE, e.g. 20/10", p)
		}
		out = append(out, poolSetting{name: p, open: open, idle: idle})
	}
	return out, nil
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("pollbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("n", "1000,10000", "comma-separated numbers of sources (one farm feed each)")
	dbs := fs.String("db", "sqlite,postgres", "comma-separated databases: sqlite, postgres")
	rounds := fs.String("rounds", "first,unchanged,changed", "comma-separated rounds, in order: first, unchanged, changed")
	fs.StringVar(&c.bin, "feedpoller", "", "feedpoller binary to measure (default: build ./cmd/feedpoller)")
	fs.IntVar(&c.workers, "workers", 0, "FEEDPOLLER_POLLER_WORKERS (0: the daemon's default)")
	fs.IntVar(&c.batchSize, "batch", 0, "FEEDPOLLER_POLLER_BATCH_SIZE (0: the daemon's default)")
	fs.IntVar(&c.perDomain, "per-domain", 64, "FEEDPOLLER_FETCH_PER_DOMAIN_CONCURRENCY: every farm feed is on one host")
	fs.IntVar(&c.items, "items", feedfarm.DefaultItemsPerFeed, "items per feed")
	fs.IntVar(&c.body, "body", feedfarm.DefaultBodyBytes, "approximate HTML bytes per item")
	fs.Float64Var(&c.change, "change", 0.5, "share of feeds that change between polls")
	fs.Int64Var(&c.seed, "seed", 1, "farm seed")
	fs.DurationVar(&c.timeout, "round-timeout", 3*time.Minute, "give up on a round after this long")
	fs.StringVar(&c.jsonOut, "json", "", "also write every result as JSON lines to this file")
	fs.BoolVar(&c.keep, "keep", false, "keep the work directory (databases, daemon logs)")
	pools := fs.String("pools", "default", "PostgreSQL pool settings to compare, each on a fresh database: default (sized from the workers) or OPEN/IDLE, e.g. 20/10,default")
	replicas := fs.String("replicas", "1", "comma-separated numbers of daemons on one PostgreSQL database, each on a fresh database, e.g. 1,2,4 (SQLite: 1 only)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var err error
	for _, r := range strings.Split(*replicas, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil || n <= 0 || n > 16 {
			return c, fmt.Errorf("-replicas %q: want numbers of daemons from 1 to 16", r)
		}
		c.replicas = append(c.replicas, n)
	}
	if c.pools, err = parsePools(*pools); err != nil {
		return c, err
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return c, fmt.Errorf("-n %q: want positive numbers", s)
		}
		c.sizes = append(c.sizes, n)
	}
	for _, d := range strings.Split(*dbs, ",") {
		d = strings.TrimSpace(d)
		if d != store.SQLite && d != store.Postgres {
			return c, fmt.Errorf("-db %q: want sqlite or postgres", d)
		}
		c.dbs = append(c.dbs, d)
	}
	for _, r := range strings.Split(*rounds, ",") {
		r = strings.TrimSpace(r)
		if _, ok := expectedStatus[r]; !ok {
			return c, fmt.Errorf("-rounds %q: want first, unchanged or changed", r)
		}
		c.rounds = append(c.rounds, r)
	}
	if !(c.change >= 0 && c.change <= 1) {
		return c, fmt.Errorf("-change %v: want a share between 0 and 1", c.change)
	}
	return c, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pollbench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := benchmark(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pollbench:", err)
		os.Exit(1)
	}
}

func benchmark(ctx context.Context, cfg config, stdout, stderr io.Writer) (err error) {
	progress := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	work, err := os.MkdirTemp("", "pollbench-")
	if err != nil {
		return fmt.Errorf("make work directory: %w", err)
	}
	if cfg.keep {
		progress("work directory: %s", work)
	} else {
		defer func() {
			if err := os.RemoveAll(work); err != nil {
				progress("work directory left behind: %v", err)
			}
		}()
	}
	if cfg.bin == "" {
		progress("building feedpoller…")
		if cfg.bin, err = buildDaemon(ctx, work); err != nil {
			return err
		}
	}
	var cluster *pgcluster.Cluster
	for _, d := range cfg.dbs {
		if d == store.Postgres && cluster == nil {
			progress("starting PostgreSQL…")
			if cluster, err = pgcluster.Start(ctx); err != nil {
				return err
			}
			defer cluster.Stop()
		}
	}
	var jsonOut *json.Encoder
	if cfg.jsonOut != "" {
		f, err := os.Create(cfg.jsonOut)
		if err != nil {
			return fmt.Errorf("create %s: %w", cfg.jsonOut, err)
		}
		defer func() {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("write %s: %w", cfg.jsonOut, cerr)
			}
		}()
		jsonOut = json.NewEncoder(f)
	}
	var all []result
	for _, d := range cfg.dbs {
		pools, replicas := cfg.pools, cfg.replicas
		if d == store.SQLite {
			// One writer: neither the pool nor replicas are what is compared.
			pools, replicas = []poolSetting{{name: "default"}}, []int{1}
		}
		for _, n := range cfg.sizes {
			for _, pool := range pools {
				for _, reps := range replicas {
					progress("%s, %d sources, pool %s, %d daemon(s):", d, n, pool.name, reps)
					rs, err := runOne(ctx, cfg, work, d, n, pool, reps, cluster, progress)
					for _, r := range rs {
						all = append(all, r)
						if jsonOut != nil {
							if err := jsonOut.Encode(r); err != nil {
								return fmt.Errorf("write %s: %w", cfg.jsonOut, err)
							}
						}
					}
					if err != nil {
						return fmt.Errorf("%s with %d sources, pool %s, %d daemons: %w", d, n, pool.name, reps, err)
					}
				}
			}
		}
	}
	if err := writeReport(stdout, cfg, all); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// runOne measures one database at one size with reps daemons, from a
// fresh database to stopped daemons.
func runOne(ctx context.Context, cfg config, work, dialect string, n int, pool poolSetting, reps int, cluster *pgcluster.Cluster,
	progress func(string, ...any)) ([]result, error) {
	dir := filepath.Join(work, fmt.Sprintf("%s-%d-%s-x%d", dialect, n, strings.ReplaceAll(pool.name, "/", "-"), reps))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var dbURL string
	pgPID := 0
	switch dialect {
	case store.SQLite:
		dbURL = "sqlite:" + filepath.Join(dir, "feedpoller.db")
	case store.Postgres:
		u, err := cluster.CreateDatabase(ctx, fmt.Sprintf("pollbench_%d_%s_x%d", n, strings.NewReplacer("/", "_").Replace(pool.name), reps), false)
		if err != nil {
			return nil, err
		}
		dbURL, pgPID = u, cluster.PID()
	}

	farm := feedfarm.New(feedfarm.Options{Feeds: n, ItemsPerFeed: cfg.items, BodyBytes: cfg.body,
		ChangeShare: cfg.change, Seed: cfg.seed, KeepTimes: -1})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the farm: %w", err)
	}
	srv := &http.Server{Handler: farm.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)}
	go func() { _ = srv.Serve(ln) }() // ends with ErrServerClosed when the round is over
	defer srv.Close()                 //nolint:errcheck // the farm is done with; nothing to keep
	farmURL := "http://" + ln.Addr().String()

	listen, err := freeAddr()
	if err != nil {
		return nil, err
	}
	dc := daemonConfig{bin: cfg.bin, databaseURL: dbURL, listen: listen, workers: cfg.workers,
		batchSize: cfg.batchSize, perDomain: cfg.perDomain, logFile: filepath.Join(dir, "feedpoller.log"),
		maxOpen: pool.open, maxIdle: pool.idle}
	if _, err := dc.run(ctx, "migrate"); err != nil {
		return nil, err
	}
	if _, err := dc.run(ctx, append([]string{"workspaces", "add", "--name", "bench"}, benchProfile...)...); err != nil {
		return nil, err
	}
	st, err := store.OpenWith(ctx, dbURL, store.Options{DeliveryPayload: webhooks.DeliveryPayload})
	if err != nil {
		return nil, err
	}
	defer st.Close() //nolint:errcheck // the benchmark's own reads are done
	var wsID int64
	if err := st.DB().GetContext(ctx, &wsID, `SELECT id FROM workspaces WHERE name = 'bench'`); err != nil {
		return nil, fmt.Errorf("find the bench workspace: %w", err)
	}
	start := time.Now()
	ids, err := registerSources(ctx, st, wsID, farmURL, n)
	if err != nil {
		return nil, err
	}
	if err := seedValidators(ctx, st, farm, farmURL, ids); err != nil {
		return nil, err
	}
	progress("  %d sources registered in %.1fs", n, time.Since(start).Seconds())

	started := time.Now()
	d, err := startFleet(ctx, dc, dir, reps)
	if err != nil {
		return nil, err
	}
	// What the daemons cost before their first poll (start-up work):
	// VmHWM in the rounds includes it.
	if cpu, err := d.cpu(); err == nil {
		if mem, err := d.memory(); err == nil {
			progress("  %d daemon(s) ready in %.1fs: %.2f CPU s, RSS %.0f MB, peak RSS %.0f MB",
				reps, time.Since(started).Seconds(), cpu.Seconds(), float64(mem.rssKB)/1024, float64(mem.hwmKB)/1024)
		}
	}
	r := &run{db: dialect, pool: pool.name, replicas: reps, st: st, farm: farm, daemons: d, pgPID: pgPID, ids: ids,
		timeout: cfg.timeout, progress: progress}
	var out []result
	for _, name := range cfg.rounds {
		pick := farm.Changing
		if name == roundUnchanged {
			pick = func(n int) bool { return !farm.Changing(n) }
		}
		res, err := r.round(ctx, name, pick)
		if err != nil {
			if serr := d.stop(); serr != nil {
				progress("  daemon stop: %v", serr)
			}
			return out, fmt.Errorf("round %s: %w", name, err)
		}
		progress("  %-9s %6d polls in %6.1fs: %7.1f polls/s, %6.2f CPU s/1k polls (db %5.2f), lag p50 %.2fs p99 %.2fs, peak RSS %.0f MB, new PG sessions %s, double polls %d/%d, per daemon %v, outcomes %v",
			name, res.Polls, res.WallS, res.PollsPS, res.DaemonCPUPer1k, res.DBCPUPer1k, res.LagP50, res.LagP99, res.PeakRSSMB,
			sessions(res), res.DoublePolls, res.FarmDoubles, res.PerDaemon, res.Outcomes)
		out = append(out, res)
		if !res.Complete {
			// The unfinished polls would spill into the next round's count.
			progress("  round %s incomplete after %v: %d of %d polls; later rounds skipped", name, cfg.timeout, res.Polls, res.Expected)
			break
		}
	}
	if err := d.stop(); err != nil {
		progress("  daemon stop: %v", err)
	}
	return out, nil
}
