package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/jmoiron/sqlx"
)

// maxErrorBytes bounds the error texts stored on a source and a poll run.
const maxErrorBytes = 2000

// sourceSet is the SET clause of the source's bookkeeping, shared by the
// transaction (updateSource) and the dialects' single 304 statement
// (dialect.bookkeepingOnly). It also gives the lease back.
const sourceSet = `last_polled_at = ?, last_polled_status = ?, last_polled_error = ?,
	consecutive_failures = CASE WHEN ? THEN consecutive_failures + 1 WHEN ? THEN 0 ELSE consecutive_failures END,
	next_poll_at = ?, next_poll_reason = ?, next_poll_kind = ?, schedule_state = ?,
	hub_url = COALESCE(?, hub_url), self_url = COALESCE(?, self_url),
	is_active = CASE WHEN ? THEN ? ELSE is_active END,
	etag = COALESCE(?, etag), last_modified = COALESCE(?, last_modified),
	last_unconditional_at = CASE WHEN ? THEN ? ELSE last_unconditional_at END,
	title = CASE WHEN title = '' THEN ? ELSE title END,
	site_url = COALESCE(NULLIF(?, ''), site_url),
	lease_until = NULL, lease_owner = '', updated_at = ?`

// sourceLeased is the WHERE clause of the bookkeeping: the source, still
// leased to this poll's owner.
const sourceLeased = ` WHERE id = ? AND lease_owner = ? AND lease_until > ?`

// maxReasonBytes bounds the stored next poll reason.
const maxReasonBytes = 500

// sourceArgs are the parameters of sourceSet and sourceLeased, at time t.
func sourceArgs(p model.PollSave, t time.Time) []any {
	u := p.Source
	polled := t
	if !u.PolledAt.IsZero() {
		polled = u.PolledAt.UTC()
	}
	return []any{polled, u.Status, truncate(u.Error, maxErrorBytes), u.Failed, u.Reset, u.NextPollAt.UTC(),
		truncate(u.NextPollReason, maxReasonBytes), u.NextPollKind, u.ScheduleState, u.HubURL, u.SelfURL,
		u.Deactivate, false, u.ETag, u.LastModified, u.Unconditional, polled, u.Title, u.SiteURL, t, p.SourceID, p.Owner, t}
}

// updateSource writes the source's bookkeeping in the poll's transaction;
// ErrLeaseLost when the lease is no longer the poll's.
func (s *Store) updateSource(ctx context.Context, tx *sqlx.Tx, p model.PollSave) error {
	res, err := tx.ExecContext(ctx, s.q(`UPDATE feed_sources SET `+sourceSet+sourceLeased), sourceArgs(p, now())...)
	if err != nil {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, err)
	}
	return pollLeaseHeld(p, res)
}

// pollLeaseHeld turns "no row updated" into ErrLeaseLost.
func pollLeaseHeld(p model.PollSave, res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, err)
	}
	if n == 0 {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, model.ErrLeaseLost)
	}
	return nil
}

// runColumns are the columns of a poll_runs row, but its id.
const runColumns = `feed_source_id, started_at, finished_at, outcome, http_status, items_seen, items_new,
	items_duplicate, items_promoted, duration_ms, error`

// runArgs are the parameters of a poll_runs row after feed_source_id.
func runArgs(p model.PollSave) []any {
	r := p.Run
	return []any{r.StartedAt.UTC(), utcPtr(r.FinishedAt), r.Outcome, r.HTTPStatus, r.ItemsSeen, r.ItemsNew,
		r.ItemsDuplicate, r.ItemsPromoted, r.DurationMS, truncate(r.Error, maxErrorBytes)}
}

// insertRun appends the poll's poll_runs row in its transaction.
func (s *Store) insertRun(ctx context.Context, tx *sqlx.Tx, p model.PollSave) error {
	args := append([]any{p.SourceID}, runArgs(p)...)
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO poll_runs (`+runColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), args...)
	if err != nil {
		return fmt.Errorf("record poll run of source %d: %w", p.SourceID, err)
	}
	return nil
}

// saveBookkeepingOnly records a poll that stored no article with the
// dialect's single statement (dialect.bookkeepingOnly): no transaction,
// one round trip.
func (s *Store) saveBookkeepingOnly(ctx context.Context, stmt string, p model.PollSave) error {
	args := append(sourceArgs(p, now()), runArgs(p)...)
	res, err := s.db.ExecContext(ctx, s.q(stmt), args...)
	if err != nil {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, err)
	}
	return pollLeaseHeld(p, res)
}
