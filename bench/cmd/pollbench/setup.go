package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/store"
)

// benchProfile is the workspace's relevance profile, as CLI arguments:
// words the farm's vocabulary uses, so some articles are promoted and some
// are not.
var benchProfile = []string{
	"--keyword", "energy:2", "--keyword", "climate:2", "--keyword", "solar", "--keyword", "battery",
	"--keyword", "security", "--keyword", "software release:2", "--keyword", "carbon", "--keyword", "grid",
	"--exclude", "sponsored", "--threshold", "0.2",
}

// benchWorkspaces returns the workspace of each of n sources: the bench
// workspace for every one (layout one), or a workspace per source (layout
// many), the others made with the bench workspace's relevance profile.
func benchWorkspaces(ctx context.Context, st *store.Store, layout string, n int) ([]int64, error) {
	db := st.DB()
	var bench struct {
		ID      int64  `db:"id"`
		Profile string `db:"relevance_profile"`
	}
	if err := db.GetContext(ctx, &bench, `SELECT /* pollbench */ id, relevance_profile FROM workspaces WHERE name = 'bench'`); err != nil {
		return nil, fmt.Errorf("find the bench workspace: %w", err)
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = bench.ID
	}
	if layout == layoutOne {
		return out, nil
	}
	const batch = 500
	for start := 1; start < n; start += batch {
		end := min(start+batch, n)
		var sb strings.Builder
		sb.WriteString(`INSERT INTO workspaces (name, relevance_profile) VALUES `)
		args := make([]any, 0, 2*(end-start))
		for i := start; i < end; i++ {
			if i > start {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?)")
			args = append(args, fmt.Sprintf("bench-%d", i), bench.Profile)
		}
		if _, err := db.ExecContext(ctx, db.Rebind(sb.String()+" /* pollbench */"), args...); err != nil {
			return nil, fmt.Errorf("make workspaces %d..%d: %w", start, end-1, err)
		}
	}
	rows, err := db.QueryxContext(ctx, `SELECT /* pollbench */ id, name FROM workspaces WHERE name LIKE 'bench-%'`)
	if err != nil {
		return nil, fmt.Errorf("read workspace ids: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		var i int
		if _, err := fmt.Sscanf(name, "bench-%d", &i); err == nil && i > 0 && i < n {
			out[i] = id
		}
	}
	return out, rows.Err()
}

// registerSources inserts one RSS source per farm feed straight into
// feed_sources, feed n's in workspaces[n] (the API would validate each by
// fetching it, which is not what is measured), none of them due until a
// round makes them so. It returns the source id of every feed, indexed by
// feed number.
func registerSources(ctx context.Context, st *store.Store, workspaces []int64, farmURL string, feeds int) ([]int64, error) {
	db := st.DB()
	far := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	now := time.Now().UTC()
	const batch = 500
	for start := 0; start < feeds; start += batch {
		end := min(start+batch, feeds)
		var sb strings.Builder
		sb.WriteString(`INSERT INTO feed_sources (workspace_id, url, source_type, title, is_active,
			polling_interval_minutes, next_poll_at, created_at, updated_at) VALUES `)
		args := make([]any, 0, (end-start)*7)
		for n := start; n < end; n++ {
			if n > start {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, 'rss', '', TRUE, 30, ?, ?, ?)")
			args = append(args, workspaces[n], fmt.Sprintf("%s/feed/%d.xml", farmURL, n), far, now, now)
		}
		if _, err := db.ExecContext(ctx, db.Rebind(sb.String()+" /* pollbench */"), args...); err != nil {
			return nil, fmt.Errorf("register sources %d..%d: %w", start, end-1, err)
		}
	}
	rows, err := db.QueryxContext(ctx, `SELECT /* pollbench */ id, url FROM feed_sources`)
	if err != nil {
		return nil, fmt.Errorf("read source ids: %w", err)
	}
	defer rows.Close()
	ids := make([]int64, feeds)
	prefix := farmURL + "/feed/"
	for rows.Next() {
		var id int64
		var u string
		if err := rows.Scan(&id, &u); err != nil {
			return nil, err
		}
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(u, prefix), "%d.xml", &n); err == nil && n >= 0 && n < feeds {
			ids[n] = id
		}
	}
	return ids, rows.Err()
}

// seedValidators gives each source of an unchanging feed the validators
// the farm hands out for it, as a previous poll would have stored them, so
// that its first poll in the benchmark is already a 304. The farm answers
// these requests itself; its counters are reset afterwards.
func seedValidators(ctx context.Context, st *store.Store, farm *feedfarm.Farm, farmURL string, ids []int64) error {
	h := farm.Handler()
	tx, err := st.DB().BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("seed validators: %w", err)
	}
	defer tx.Rollback()
	now := time.Now().UTC()
	q := tx.Rebind(`UPDATE /* pollbench */ feed_sources SET etag = ?, last_modified = ?, last_unconditional_at = ? WHERE id = ?`)
	for n, id := range ids {
		if farm.Changing(n) {
			continue
		}
		req := httptest.NewRequest(http.MethodGet, fmt.Sprintf("%s/feed/%d.xml", farmURL, n), nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			return fmt.Errorf("seed validators: farm answered %d for feed %d", rec.Code, n)
		}
		if _, err := tx.ExecContext(ctx, q, rec.Header().Get("ETag"), rec.Header().Get("Last-Modified"), now, id); err != nil {
			return fmt.Errorf("seed validators of source %d: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("seed validators: %w", err)
	}
	farm.Reset()
	return nil
}

// makeDue sets next_poll_at of the sources to t, in chunks, in one
// transaction, so they become due together.
func makeDue(ctx context.Context, st *store.Store, ids []int64, t time.Time) error {
	tx, err := st.DB().BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("make sources due: %w", err)
	}
	defer tx.Rollback()
	const chunk = 1000
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		var sb strings.Builder
		sb.WriteString(`UPDATE /* pollbench */ feed_sources SET next_poll_at = ? WHERE id IN (`)
		args := []any{t.UTC()}
		for i, id := range part {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString("?")
			args = append(args, id)
		}
		sb.WriteString(")")
		if _, err := tx.ExecContext(ctx, tx.Rebind(sb.String()), args...); err != nil {
			return fmt.Errorf("make %d sources due: %w", len(part), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("make sources due: %w", err)
	}
	return nil
}
