package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/bench/internal/proc"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// Round names: which sources are made due and what they find.
const (
	roundFirst     = "first"     // changing feeds, first poll: every item new
	roundUnchanged = "unchanged" // unchanging feeds: 304 Not Modified
	roundChanged   = "changed"   // changing feeds again: -new new items each
	roundFresh     = "fresh"     // changing feeds again: every item new
)

// expectedStatus is the poll outcome every poll of a round should have.
var expectedStatus = map[string]string{
	roundFirst: model.StatusOK, roundUnchanged: model.StatusNotModified, roundChanged: model.StatusOK,
	roundFresh: model.StatusOK,
}

// result is what one round measured.
type result struct {
	// Variant is the binary measured (see variant.label) and Layout how
	// its sources are spread over workspaces; Rep counts the earlier
	// rounds of the same name in the run.
	Variant  string         `json:"variant"`
	Layout   string         `json:"layout"`
	Rep      int            `json:"rep"`
	DB       string         `json:"db"`
	Pool     string         `json:"pool"`
	Replicas int            `json:"replicas"`
	Sources  int            `json:"sources"`
	Round    string         `json:"round"`
	Polls    int            `json:"polls"`
	Expected int            `json:"expected"`
	Outcomes map[string]int `json:"outcomes"`
	WallS    float64        `json:"wall_s"`
	PollsPS  float64        `json:"polls_per_s"`
	// CPU seconds per 1 000 polls: the daemons' together, and
	// PostgreSQL's server processes' (0 on SQLite, which runs inside the
	// daemon).
	DaemonCPUPer1k float64 `json:"daemon_cpu_s_per_1k"`
	DBCPUPer1k     float64 `json:"db_cpu_s_per_1k"`
	// ServerMSPerPoll is PostgreSQL's execution time of the daemons'
	// statements per poll (pg_stat_statements), Statements the most
	// expensive of them (-statements).
	ServerMSPerPoll float64     `json:"server_ms_per_poll"`
	Statements      []statement `json:"statements,omitempty"`
	// Scheduler lag (poll start − next_poll_at) from poll_runs, and the
	// same from the daemon's histogram (bucket-interpolated).
	LagP50, LagP99, LagMax float64
	HistP50, HistP99       float64
	// Rows inserted per second (feed_articles + content_items +
	// poll_runs) and, with the feed_sources updates, rows written.
	InsertsPS    float64 `json:"inserts_per_s"`
	WritesPS     float64 `json:"rows_written_per_s"`
	ArticlesNew  int64   `json:"articles_new"`
	Promoted     int64   `json:"promoted"`
	FarmOK       int64   `json:"farm_200"`
	FarmNotMod   int64   `json:"farm_304"`
	FarmItemReqs int64   `json:"farm_item_requests"`
	// RSSMB is the daemons' resident memory at the end of the round,
	// summed; PeakRSSMB the highest peak of any one daemon.
	RSSMB     float64 `json:"rss_mb"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	// DoublePolls counts sources with more than one poll_runs row in the
	// round; FarmDoubles the round's feeds the farm served more than
	// once; FarmUnexpected feeds outside the round that were requested.
	DoublePolls    int `json:"double_polls"`
	FarmDoubles    int `json:"farm_double_requests"`
	FarmUnexpected int `json:"farm_unexpected"`
	// PerDaemon is how many polls each daemon recorded in the round.
	PerDaemon []int `json:"polls_per_daemon"`
	// NewSessions is how many PostgreSQL sessions the round opened on the
	// database (pg_stat_database.sessions); -1 on SQLite.
	NewSessions int64 `json:"new_pg_sessions"`
	Complete    bool  `json:"complete"`
}

// run is one variant's daemons on one database with its farm and
// sources.
type run struct {
	dir        string // the run's work directory
	db         string
	pool       string
	replicas   int
	variant    variant
	st         *store.Store
	farm       *feedfarm.Farm
	farmSrv    *http.Server
	daemons    fleet
	pgPID      int    // postmaster, 0 on SQLite
	dbName     string // PostgreSQL database, "" on SQLite
	ids        []int64
	timeout    time.Duration
	statements int
	relations  bool // measure each relation too (storage.Relations)
	progress   func(format string, args ...any)
}

type counts struct{ articles, items, runs int64 }

func (r *run) counts(ctx context.Context) (counts, error) {
	var c counts
	err := r.st.DB().QueryRowxContext(ctx, `SELECT /* pollbench */ (SELECT COUNT(*) FROM feed_articles),
		(SELECT COUNT(*) FROM content_items), (SELECT COUNT(*) FROM poll_runs)`).Scan(&c.articles, &c.items, &c.runs)
	if err != nil {
		return c, fmt.Errorf("count rows: %w", err)
	}
	return c, nil
}

func (r *run) dbCPU() time.Duration {
	if r.pgPID == 0 {
		return 0
	}
	d, _ := proc.TreeCPU(r.pgPID)
	return d
}

// round makes the sources of the feeds that pick selects due at once and
// measures until every one of them has a poll_runs row (or the timeout).
func (r *run) round(ctx context.Context, name string, pick func(n int) bool) (result, error) {
	res := result{Variant: r.variant.label(), Layout: r.variant.layout, DB: r.db, Pool: r.pool, Replicas: r.replicas,
		Sources: len(r.ids), Round: name, Outcomes: map[string]int{}, NewSessions: -1}
	var ids []int64
	picked := map[int]bool{}
	for n, id := range r.ids {
		if pick(n) {
			ids = append(ids, id)
			picked[n] = true
		}
	}
	res.Expected = len(ids)
	if len(ids) == 0 {
		return res, nil
	}
	var lastRun int64
	if err := r.st.DB().GetContext(ctx, &lastRun, `SELECT /* pollbench */ COALESCE(MAX(id), 0) FROM poll_runs`); err != nil {
		return res, fmt.Errorf("read last poll run: %w", err)
	}
	c0, err := r.counts(ctx)
	if err != nil {
		return res, err
	}
	h0, err := r.daemons.histogram(ctx, "feedpoller_scheduler_lag_seconds")
	if err != nil {
		return res, err
	}
	polls0, err := r.daemons.polls(ctx)
	if err != nil {
		return res, err
	}
	r.farm.Reset()
	cpu0, err := r.daemons.cpu()
	if err != nil {
		return res, err
	}
	db0 := r.dbCPU()
	sessions0, err := r.sessions(ctx)
	if err != nil {
		return res, err
	}
	if err := r.resetStatements(ctx); err != nil {
		return res, err
	}

	t0 := time.Now().UTC()
	if err := makeDue(ctx, r.st, ids, t0); err != nil {
		return res, err
	}
	deadline := time.Now().Add(r.timeout)
	done := 0
	lastReport := time.Now()
	for {
		if err := r.st.DB().GetContext(ctx, &done, r.st.DB().Rebind(`SELECT /* pollbench */ COUNT(*) FROM poll_runs WHERE id > ?`), lastRun); err != nil {
			return res, fmt.Errorf("count polls: %w", err)
		}
		if done >= len(ids) {
			res.Complete = true
			break
		}
		if time.Now().After(deadline) {
			break
		}
		if time.Since(lastReport) > 10*time.Second {
			r.progress("  %s: %d/%d polls after %.0fs", name, done, len(ids), time.Since(t0).Seconds())
			lastReport = time.Now()
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	cpu1, err := r.daemons.cpu()
	if err != nil {
		return res, err
	}
	db1 := r.dbCPU()
	serverMS, top, err := r.readStatements(ctx)
	if err != nil {
		return res, err
	}
	if r.pgPID != 0 {
		sessions1, err := r.settledSessions(ctx)
		if err != nil {
			return res, err
		}
		res.NewSessions = sessions1 - sessions0
	}
	mem, err := r.daemons.memory()
	if err != nil {
		return res, err
	}
	h1, err := r.daemons.histogram(ctx, "feedpoller_scheduler_lag_seconds")
	if err != nil {
		return res, err
	}
	polls1, err := r.daemons.polls(ctx)
	if err != nil {
		return res, err
	}
	for i := range polls1 {
		res.PerDaemon = append(res.PerDaemon, int(polls1[i]-polls0[i]))
	}
	c1, err := r.counts(ctx)
	if err != nil {
		return res, err
	}
	fs := r.farm.Stats()
	for _, f := range fs.Feeds {
		switch {
		case picked[f.Feed] && f.Requests > 1:
			res.FarmDoubles++
		case !picked[f.Feed] && f.Requests > 0:
			res.FarmUnexpected++
		}
	}
	if err := r.st.DB().GetContext(ctx, &res.DoublePolls, r.st.DB().Rebind(`SELECT /* pollbench */ COUNT(*) FROM
		(SELECT feed_source_id FROM poll_runs WHERE id > ? GROUP BY feed_source_id HAVING COUNT(*) > 1) twice`), lastRun); err != nil {
		return res, fmt.Errorf("count double polls: %w", err)
	}

	rows, err := r.st.DB().QueryxContext(ctx, r.st.DB().Rebind(`SELECT /* pollbench */ started_at, finished_at, outcome FROM poll_runs WHERE id > ?`), lastRun)
	if err != nil {
		return res, fmt.Errorf("read poll runs: %w", err)
	}
	var lags []float64
	var lastFinish time.Time
	for rows.Next() {
		var started time.Time
		var finished *time.Time
		var outcome string
		if err := rows.Scan(&started, &finished, &outcome); err != nil {
			rows.Close()
			return res, fmt.Errorf("read poll run: %w", err)
		}
		lags = append(lags, started.Sub(t0).Seconds())
		if finished != nil && finished.After(lastFinish) {
			lastFinish = *finished
		}
		res.Outcomes[outcome]++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, err
	}

	res.Polls = len(lags)
	wall := lastFinish.Sub(t0)
	if !res.Complete || wall <= 0 {
		wall = time.Since(t0)
	}
	res.WallS = wall.Seconds()
	if res.Polls > 0 {
		res.PollsPS = float64(res.Polls) / res.WallS
		res.DaemonCPUPer1k = (cpu1 - cpu0).Seconds() * 1000 / float64(res.Polls)
		res.DBCPUPer1k = (db1 - db0).Seconds() * 1000 / float64(res.Polls)
		res.ServerMSPerPoll = serverMS / float64(res.Polls)
		for _, st := range top {
			st.MSPerPoll = st.TotalMS / float64(res.Polls)
			res.Statements = append(res.Statements, st)
		}
	}
	slices.Sort(lags)
	res.LagP50, res.LagP99 = percentile(lags, 0.50), percentile(lags, 0.99)
	if len(lags) > 0 {
		res.LagMax = lags[len(lags)-1]
	}
	hd := h1.minus(h0)
	res.HistP50, res.HistP99 = hd.quantile(0.50), hd.quantile(0.99)
	inserted := (c1.articles - c0.articles) + (c1.items - c0.items) + (c1.runs - c0.runs)
	res.InsertsPS = float64(inserted) / res.WallS
	res.WritesPS = float64(inserted+int64(res.Polls)) / res.WallS
	res.ArticlesNew = c1.articles - c0.articles
	res.Promoted = c1.items - c0.items
	res.FarmOK, res.FarmNotMod, res.FarmItemReqs = fs.OK, fs.NotModified, fs.ItemRequests
	res.RSSMB, res.PeakRSSMB = float64(mem.rssKB)/1024, float64(mem.hwmKB)/1024
	return res, nil
}

// sessions is how many sessions were ever opened on the benchmark's
// PostgreSQL database (0 on SQLite). The benchmark's own connection stays
// open throughout, so differences are the daemon's.
func (r *run) sessions(ctx context.Context) (int64, error) {
	if r.pgPID == 0 {
		return 0, nil
	}
	var n int64
	if err := r.st.DB().GetContext(ctx, &n, `SELECT /* pollbench */ sessions FROM pg_stat_database WHERE datname = current_database()`); err != nil {
		return 0, fmt.Errorf("read pg_stat_database.sessions: %w", err)
	}
	return n, nil
}

// settledSessions reads sessions once the count stops moving: a backend
// reports its session to the statistics after its first transaction, and
// a session closed at the end of the round a moment later.
func (r *run) settledSessions(ctx context.Context) (int64, error) {
	last, err := r.sessions(ctx)
	if err != nil {
		return 0, err
	}
	for i := 0; i < 20; i++ {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(1500 * time.Millisecond):
		}
		n, err := r.sessions(ctx)
		if err != nil {
			return 0, err
		}
		if n == last {
			return n, nil
		}
		last = n
	}
	return last, nil
}

// percentile of sorted values, nearest rank; NaN when empty.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
