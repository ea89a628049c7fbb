// Command pollbench measures the real feedpoller daemon against the
// synthetic feed farm: for each database (SQLite, PostgreSQL) and each
// number of sources it starts a farm in this process, a fresh database
// and `feedpoller serve`, registers one source per feed, and runs rounds
// in which a set of sources becomes due at once:
//
//	first      changing feeds, first poll: all 20 items new
//	unchanged  unchanging feeds: 304 Not Modified
//	changed    changing feeds again: -new items new (default one), the rest known
//	fresh      changing feeds again: every item new
//
// For every round it reports polls per second, the daemon's CPU seconds
// per 1 000 polls (and PostgreSQL's), the daemon's resident memory and
// peak, scheduler lag p50/p99 and rows written per second, and at the end
// the bytes stored per article, table by table. With -replicas it runs 1,
// 2, … daemons side by side on one PostgreSQL database (real binaries,
// real leases) and reports how throughput and CPU per poll scale and
// whether any source was polled twice in a round, counted from poll_runs
// and from the farm's per-feed request counters.
//
// Variants run side by side, interleaved round by round on the same
// machine and the same database server, each with its own farm (same
// seed, so the same content), database and daemon; the daemons not in a
// round are stopped (SIGSTOP) so they cost nothing in it. -against REV
// builds the binary of an older revision of this repository as a second
// variant (its migrations are its own, so it gets its own database), and
// -layouts one,many runs the sources in one workspace and in one
// workspace each. See bench/README.md for the figures and how to read
// them.
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
	// against is a revision of this repository to build and run beside
	// the binary under test; againstBin a binary built already.
	against, againstBin string
	// newItems is how many items a changed round finds new.
	newItems int
	// layouts: "one" workspace holding every source, "many" workspaces of
	// one source each.
	layouts []string
	// recent dates the farm's items in the last two days, inside the
	// story window, as live feeds are.
	recent bool
	// statements is how many of PostgreSQL's most expensive statements
	// to report per round (pg_stat_statements); 0: none.
	statements int
	// text is the farm's text model.
	text feedfarm.Text
	// perfDir, when set, receives a `perf record` of the daemons and
	// their PostgreSQL backends for each round.
	perfDir string
	// relations also measures each relation of the articles' tables
	// (heap, TOAST, each index) at the end.
	relations bool
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
	rounds := fs.String("rounds", "first,unchanged,changed", "comma-separated rounds, in order (repeat a name to measure it again): first, unchanged, changed, fresh")
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
	fs.BoolVar(&c.keep, "keep", false, "keep the work directory (databases, daemon logs; a dump of each PostgreSQL database)")
	pools := fs.String("pools", "default", "PostgreSQL pool settings to compare, each on a fresh database: default (sized from the workers) or OPEN/IDLE, e.g. 20/10,default")
	replicas := fs.String("replicas", "1", "comma-separated numbers of daemons on one PostgreSQL database, each on a fresh database, e.g. 1,2,4 (SQLite: 1 only)")
	fs.StringVar(&c.against, "against", "", "git revision of this repository to build and run beside the binary under test, on its own database (e.g. aac6f58)")
	fs.StringVar(&c.againstBin, "against-bin", "", "a feedpoller binary to run beside the binary under test (instead of building -against)")
	fs.IntVar(&c.newItems, "new", 1, "items a changed round finds new (the rest of the feed is known)")
	layouts := fs.String("layouts", layoutOne, "comma-separated workspace layouts, each a variant: one (every source in one workspace), many (a workspace per source)")
	fs.BoolVar(&c.recent, "recent", false, "date the farm's items in the last two days, inside the story window (default: the farm's fixed dates of 2025); the farm's small vocabulary makes every article a candidate of many others then")
	text := fs.String("text", "uniform", "the farm's text model: uniform (every word drawn from ~190, every article alike) or news (Zipf-distributed words, items reporting shared time-bound events)")
	fs.StringVar(&c.perfDir, "perf", "", "record each round's CPU profile of the daemons and their PostgreSQL backends with `perf record` into this directory")
	fs.BoolVar(&c.relations, "relations", false, "also report the bytes per article of each relation of the articles' tables: heap, TOAST and its index, each index (main fork only on PostgreSQL)")
	fs.IntVar(&c.statements, "statements", 0, "report this many of PostgreSQL's most expensive statements per round (pg_stat_statements)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var err error
	if c.text, err = feedfarm.ParseText(*text); err != nil {
		return c, fmt.Errorf("-text: %w", err)
	}
	if c.against != "" && c.againstBin != "" {
		return c, fmt.Errorf("-against and -against-bin: give one")
	}
	if c.newItems < 1 {
		return c, fmt.Errorf("-new %d: want at least one new item", c.newItems)
	}
	for _, l := range strings.Split(*layouts, ",") {
		l = strings.TrimSpace(l)
		if l != layoutOne && l != layoutMany {
			return c, fmt.Errorf("-layouts %q: want one or many", l)
		}
		c.layouts = append(c.layouts, l)
	}
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
			return c, fmt.Errorf("-rounds %q: want first, unchanged, changed or fresh", r)
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
	variants, err := makeVariants(ctx, cfg, work, progress)
	if err != nil {
		return err
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
	var stored []storage
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
					rs, ss, err := runOne(ctx, cfg, work, d, n, pool, reps, variants, cluster, progress)
					for _, r := range rs {
						all = append(all, r)
						if jsonOut != nil {
							if err := jsonOut.Encode(r); err != nil {
								return fmt.Errorf("write %s: %w", cfg.jsonOut, err)
							}
						}
					}
					for _, st := range ss {
						stored = append(stored, st)
						if jsonOut != nil {
							if err := jsonOut.Encode(st); err != nil {
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
	if err := writeReport(stdout, cfg, variants, all, stored); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// runOne measures one database at one size with reps daemons per
// variant, from fresh databases to stopped daemons: the variants' rounds
// interleaved (the order of the variants reversed every other round, so
// that drift on the machine falls on both alike), then what each stored.
func runOne(ctx context.Context, cfg config, work, dialect string, n int, pool poolSetting, reps int, variants []variant,
	cluster *pgcluster.Cluster, progress func(string, ...any)) (out []result, stored []storage, err error) {
	var runs []*run
	defer func() {
		for _, r := range runs {
			r.close(progress)
		}
	}()
	for i, v := range variants {
		r, err := setUp(ctx, cfg, work, dialect, n, pool, reps, v, i, cluster, progress)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", v.label(), err)
		}
		runs = append(runs, r)
		if len(variants) > 1 {
			if err := r.daemons.pause(); err != nil {
				return nil, nil, err
			}
		}
	}
	done := make([]bool, len(runs))
	seen := map[string]int{}
	for k, name := range cfg.rounds {
		rep := seen[name]
		seen[name]++
		for j := range runs {
			i := j
			if k%2 == 1 {
				i = len(runs) - 1 - j
			}
			r := runs[i]
			if done[i] {
				continue
			}
			res, err := r.play(ctx, cfg, name, rep)
			if err != nil {
				return out, stored, fmt.Errorf("%s: round %s: %w", r.variant.label(), name, err)
			}
			out = append(out, res)
			if !res.Complete {
				// The unfinished polls would spill into the next round's count.
				progress("  %s: round %s incomplete after %v: %d of %d polls; its later rounds skipped",
					r.variant.label(), name, cfg.timeout, res.Polls, res.Expected)
				done[i] = true
			}
		}
	}
	for _, r := range runs {
		st, err := r.storage(ctx)
		if err != nil {
			return out, stored, fmt.Errorf("%s: %w", r.variant.label(), err)
		}
		progress("  %s: %d articles, %.0f B stored per article (articles' tables %.0f B); %s", r.variant.label(),
			st.Articles, st.PerArticle(), st.ArticlePerArticle(), st.storySummary())
		stored = append(stored, st)
		if cfg.keep && r.dbName != "" {
			// The cluster's directory goes when the benchmark ends.
			file := filepath.Join(r.dir, "postgres.dump")
			if err := cluster.Dump(ctx, r.dbName, file); err != nil {
				return out, stored, fmt.Errorf("%s: %w", r.variant.label(), err)
			}
			progress("  %s: database kept as %s (pg_restore)", r.variant.label(), file)
		}
	}
	return out, stored, nil
}

// setUp makes variant v's run: a farm, a fresh database migrated by the
// variant's own binary, the workspaces and sources, and its daemons.
func setUp(ctx context.Context, cfg config, work, dialect string, n int, pool poolSetting, reps int, v variant, index int,
	cluster *pgcluster.Cluster, progress func(string, ...any)) (_ *run, err error) {
	dir := filepath.Join(work, fmt.Sprintf("%s-%d-%s-x%d-v%d", dialect, n, strings.ReplaceAll(pool.name, "/", "-"), reps, index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &run{dir: dir, db: dialect, pool: pool.name, replicas: reps, variant: v, timeout: cfg.timeout, progress: progress,
		statements: cfg.statements, relations: cfg.relations}
	defer func() {
		if err != nil {
			r.close(progress)
		}
	}()
	var dbURL string
	switch dialect {
	case store.SQLite:
		dbURL = "sqlite:" + filepath.Join(dir, "feedpoller.db")
	case store.Postgres:
		r.dbName = fmt.Sprintf("pollbench_%d_%s_x%d_v%d", n, strings.NewReplacer("/", "_").Replace(pool.name), reps, index)
		u, err := cluster.CreateDatabase(ctx, r.dbName, true)
		if err != nil {
			return nil, err
		}
		dbURL, r.pgPID = u, cluster.PID()
	}

	farmOpts := feedfarm.Options{Feeds: n, ItemsPerFeed: cfg.items, BodyBytes: cfg.body,
		ChangeShare: cfg.change, Seed: cfg.seed, KeepTimes: -1, Text: cfg.text}
	if cfg.recent {
		// Feeds start within the last two days: their items are news the
		// story window still holds.
		farmOpts.Epoch, farmOpts.DateSpread = time.Now().Add(-48*time.Hour).Truncate(time.Hour), 24*time.Hour
	}
	r.farm = feedfarm.New(farmOpts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the farm: %w", err)
	}
	r.farmSrv = &http.Server{Handler: r.farm.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)}
	go func() { _ = r.farmSrv.Serve(ln) }() // ends with ErrServerClosed when the run is over
	farmURL := "http://" + ln.Addr().String()

	listen, err := freeAddr()
	if err != nil {
		return nil, err
	}
	dc := daemonConfig{bin: v.bin, databaseURL: dbURL, listen: listen, workers: cfg.workers,
		batchSize: cfg.batchSize, perDomain: cfg.perDomain, logFile: filepath.Join(dir, "feedpoller.log"), dir: dir,
		maxOpen: pool.open, maxIdle: pool.idle}
	if _, err := dc.run(ctx, "migrate"); err != nil {
		return nil, err
	}
	if _, err := dc.run(ctx, append([]string{"workspaces", "add", "--name", "bench"}, benchProfile...)...); err != nil {
		return nil, err
	}
	if r.st, err = store.OpenWith(ctx, dbURL, store.Options{DeliveryPayload: webhooks.DeliveryPayload}); err != nil {
		return nil, err
	}
	start := time.Now()
	workspaces, err := benchWorkspaces(ctx, r.st, v.layout, n)
	if err != nil {
		return nil, err
	}
	if r.ids, err = registerSources(ctx, r.st, workspaces, farmURL, n); err != nil {
		return nil, err
	}
	if err := seedValidators(ctx, r.st, r.farm, farmURL, r.ids); err != nil {
		return nil, err
	}
	progress("  %s: %d sources in %d workspace(s) registered in %.1fs", v.label(), n, countDistinct(workspaces),
		time.Since(start).Seconds())

	started := time.Now()
	if r.daemons, err = startFleet(ctx, dc, dir, reps); err != nil {
		return nil, err
	}
	// What the daemons cost before their first poll (start-up work):
	// VmHWM in the rounds includes it.
	if cpu, err := r.daemons.cpu(); err == nil {
		if mem, err := r.daemons.memory(); err == nil {
			progress("  %s: %d daemon(s) ready in %.1fs: %.2f CPU s, RSS %.0f MB, peak RSS %.0f MB", v.label(),
				reps, time.Since(started).Seconds(), cpu.Seconds(), float64(mem.rssKB)/1024, float64(mem.hwmKB)/1024)
		}
	}
	return r, nil
}

// play runs round name of r, its daemons woken for it and stopped again
// after when other variants share the machine, and prints its line.
func (r *run) play(ctx context.Context, cfg config, name string, rep int) (result, error) {
	pick := r.farm.Changing
	switch name {
	case roundUnchanged:
		pick = func(n int) bool { return !r.farm.Changing(n) }
	case roundChanged:
		r.farm.SetNewItems(cfg.newItems)
	case roundFresh:
		r.farm.SetNewItems(cfg.items)
	}
	if err := r.daemons.resume(); err != nil {
		return result{}, err
	}
	var pids []int
	for _, d := range r.daemons {
		pids = append(pids, d.pid())
	}
	if r.pgPID != 0 {
		pids = append(pids, backends(r.pgPID, r.dbName)...)
	}
	rec, err := startPerf(cfg.perfDir, fmt.Sprintf("%s-%s-%d-%s-%d", strings.ReplaceAll(r.variant.label(), "/", "-"), r.db,
		len(r.ids), name, rep), pids)
	if err != nil {
		return result{}, err
	}
	res, err := r.round(ctx, name, pick)
	if file, perr := rec.stop(); perr != nil && err == nil {
		err = perr
	} else if file != "" {
		r.progress("  perf recording: %s", file)
	}
	res.Rep = rep
	if len(cfg.layouts) > 1 || cfg.against != "" || cfg.againstBin != "" {
		if perr := r.daemons.pause(); perr != nil && err == nil {
			err = perr
		}
	}
	if err != nil {
		return res, err
	}
	r.progress("  %-14s %-9s %6d polls in %6.1fs: %7.1f polls/s, %6.2f CPU s/1k polls (db %5.2f, server statements %5.2f ms/poll), lag p50 %.2fs p99 %.2fs, peak RSS %.0f MB, new PG sessions %s, double polls %d/%d, per daemon %v, outcomes %v",
		r.variant.label(), name, res.Polls, res.WallS, res.PollsPS, res.DaemonCPUPer1k, res.DBCPUPer1k, res.ServerMSPerPoll,
		res.LagP50, res.LagP99, res.PeakRSSMB, sessions(res), res.DoublePolls, res.FarmDoubles, res.PerDaemon, res.Outcomes)
	for _, st := range res.Statements {
		r.progress("      %8.3f ms/poll %7d calls %8.1f rows %8.1f blocks a call  %s", st.MSPerPoll, st.Calls,
			perCall(st.Rows, st.Calls), perCall(st.Blocks, st.Calls), st.Query)
	}
	return res, nil
}

func perCall(n, calls int64) float64 {
	if calls == 0 {
		return 0
	}
	return float64(n) / float64(calls)
}

// close stops r's daemons, its farm and its store, reporting what fails.
func (r *run) close(progress func(string, ...any)) {
	if r.daemons != nil {
		if err := r.daemons.stop(); err != nil {
			progress("  %s: daemon stop: %v", r.variant.label(), err)
		}
		r.daemons = nil
	}
	if r.farmSrv != nil {
		_ = r.farmSrv.Close() // the farm is done with; nothing to keep
		r.farmSrv = nil
	}
	if r.st != nil {
		_ = r.st.Close() // the benchmark's own reads are done
		r.st = nil
	}
}

func countDistinct(ids []int64) int {
	seen := map[int64]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	return len(seen)
}
