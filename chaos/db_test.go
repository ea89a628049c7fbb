package chaos

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "github.com/lib/pq" // PostgreSQL driver
)

// db is the test's own connection to the daemon's database.
type db struct {
	t  *testing.T
	db *sql.DB
}

func openDB(t *testing.T, url string) *db {
	t.Helper()
	conn, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &db{t: t, db: conn}
}

// ctx bounds one query: a database that stops answering fails the test
// instead of hanging it.
func (d *db) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

func (d *db) exec(q string, args ...any) {
	d.t.Helper()
	ctx, cancel := d.ctx()
	defer cancel()
	if _, err := d.db.ExecContext(ctx, q, args...); err != nil {
		d.t.Fatalf("%s: %v", q, err)
	}
}

// int runs a query that answers one number.
func (d *db) int(q string, args ...any) int {
	d.t.Helper()
	ctx, cancel := d.ctx()
	defer cancel()
	var n int
	if err := d.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		d.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// workspace creates a workspace whose empty relevance profile promotes
// every article.
func (d *db) workspace(name string) int64 {
	d.t.Helper()
	ctx, cancel := d.ctx()
	defer cancel()
	var id int64
	if err := d.db.QueryRowContext(ctx, `INSERT INTO workspaces (name) VALUES ($1) RETURNING id`, name).Scan(&id); err != nil {
		d.t.Fatalf("create workspace: %v", err)
	}
	return id
}

// newSource is a row for feed_sources, inserted the way an admin's API call
// would leave it, plus the failure state a test wants to start from.
type newSource struct {
	url                 string
	sourceType          string // "rss" when empty
	intervalMinutes     int    // 1 when zero
	consecutiveFailures int
	inactive            bool
	dueAgo              time.Duration // next_poll_at = now - dueAgo
}

// addSource inserts a source and returns its id and when it is due.
func (d *db) addSource(ws int64, s newSource) (int64, time.Time) {
	d.t.Helper()
	ctx, cancel := d.ctx()
	defer cancel()
	if s.sourceType == "" {
		s.sourceType = "rss"
	}
	if s.intervalMinutes == 0 {
		s.intervalMinutes = 1
	}
	var id int64
	var due time.Time
	// Fixed schedules: these tests time failures, backoff and recovery
	// against each source's own interval, which an adaptive source only
	// starts from (and never below the scheduler's floor); the adaptive
	// policy has its own tests in poller and poller/schedule.
	err := d.db.QueryRowContext(ctx, `INSERT INTO feed_sources
		(workspace_id, url, source_type, polling_interval_minutes, consecutive_failures, is_active, next_poll_at, schedule_mode)
		VALUES ($1, $2, $3, $4, $5, $6, now() - $7 * interval '1 millisecond', 'fixed') RETURNING id, next_poll_at`,
		ws, s.url, s.sourceType, s.intervalMinutes, s.consecutiveFailures, !s.inactive, s.dueAgo.Milliseconds()).Scan(&id, &due)
	if err != nil {
		d.t.Fatalf("add source %s: %v", s.url, err)
	}
	return id, due
}

// sourceRow is a feed_sources row as the tests read it.
type sourceRow struct {
	ID                  int64
	URL                 string
	IsActive            bool
	Status              string
	Error               string
	ConsecutiveFailures int
	LastPolledAt        sql.NullTime
	NextPollAt          time.Time
	LeaseUntil          sql.NullTime
	LeaseOwner          string
}

func (d *db) source(id int64) sourceRow {
	d.t.Helper()
	ctx, cancel := d.ctx()
	defer cancel()
	var r sourceRow
	err := d.db.QueryRowContext(ctx, `SELECT id, url, is_active, last_polled_status, last_polled_error,
		consecutive_failures, last_polled_at, next_poll_at, lease_until, lease_owner FROM feed_sources WHERE id = $1`, id).
		Scan(&r.ID, &r.URL, &r.IsActive, &r.Status, &r.Error, &r.ConsecutiveFailures, &r.LastPolledAt, &r.NextPollAt,
			&r.LeaseUntil, &r.LeaseOwner)
	if err != nil {
		d.t.Fatalf("read source %d: %v", id, err)
	}
	return r
}

// pollRun is a poll_runs row.
type pollRun struct {
	StartedAt time.Time
	Outcome   string
	ItemsNew  int
	Error     string
}

// runs lists a source's poll_runs, oldest first.
func (d *db) runs(id int64) []pollRun {
	d.t.Helper()
	ctx, cancel := d.ctx()
	defer cancel()
	rows, err := d.db.QueryContext(ctx, `SELECT started_at, outcome, items_new, error FROM poll_runs
		WHERE feed_source_id = $1 ORDER BY started_at, id`, id)
	if err != nil {
		d.t.Fatalf("poll runs of source %d: %v", id, err)
	}
	defer rows.Close()
	var out []pollRun
	for rows.Next() {
		var r pollRun
		if err := rows.Scan(&r.StartedAt, &r.Outcome, &r.ItemsNew, &r.Error); err != nil {
			d.t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		d.t.Fatal(err)
	}
	return out
}

// checkStoredWhole asserts what a daemon that crashed or lost its database
// must still guarantee: each source holds exactly wantItems articles, no
// URL is stored twice, the poll_runs audit accounts for every article
// (nothing was stored by a poll that was not recorded), and every article
// has its content item (the profile promotes everything and every item's
// content differs).
func (d *db) checkStoredWhole(ws int64, ids []int64, wantItems int) {
	d.t.Helper()
	rows := d.int(`SELECT COUNT(*) FROM feed_articles WHERE workspace_id = $1`, ws)
	distinct := d.int(`SELECT COUNT(DISTINCT external_url) FROM feed_articles WHERE workspace_id = $1`, ws)
	if rows != distinct {
		d.t.Errorf("%d article rows for %d distinct URLs: duplicates stored", rows, distinct)
	}
	if want := len(ids) * wantItems; rows != want {
		d.t.Errorf("%d articles, want %d (%d sources × %d items)", rows, want, len(ids), wantItems)
	}
	for _, id := range ids {
		arts := d.int(`SELECT COUNT(*) FROM feed_articles WHERE feed_source_id = $1`, id)
		audited := d.int(`SELECT COALESCE(SUM(items_new), 0) FROM poll_runs WHERE feed_source_id = $1`, id)
		if arts != wantItems || audited != arts {
			d.t.Errorf("source %d: %d articles, poll_runs report %d new; want %d and %d", id, arts, audited, wantItems, wantItems)
		}
	}
	if n := d.int(`SELECT COUNT(*) FROM feed_articles a WHERE a.workspace_id = $1
		AND NOT EXISTS (SELECT 1 FROM content_items c WHERE c.feed_article_id = a.id)`, ws); n != 0 {
		d.t.Errorf("%d articles lost their promotion (no content item)", n)
	}
	if n := d.int(`SELECT COUNT(*) FROM content_items WHERE workspace_id = $1`, ws); n != rows {
		d.t.Errorf("%d content items for %d articles", n, rows)
	}
}
