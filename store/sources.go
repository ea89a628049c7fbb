package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/dberr"
)

const sourceColumns = `id, workspace_id, url, source_type, title, is_active, polling_interval_minutes, track_changes,
	etag, last_modified, last_polled_at, last_polled_status, last_polled_error, consecutive_failures,
	next_poll_at, schedule_mode, next_poll_reason, next_poll_kind, schedule_state, hub_url, self_url,
	websub_subscribed_until, last_unconditional_at, due_at, lease_until, lease_owner, created_at, updated_at,
	reliability_tier, reliability_tier_manual, decay_class, category, site_url`

// ReasonNew and ReasonActivated are the next poll reasons of a source
// that was just created or turned active: due at once, by no rule of the
// scheduler (their kind is "").
const (
	ReasonNew       = "new source, due now"
	ReasonActivated = "activated, due now"
)

// CreateSource stores a new source, due at once. A URL already in the
// workspace is ErrConflict. An empty ScheduleMode is adaptive.
func (s *Store) CreateSource(ctx context.Context, src *model.FeedSource) error {
	t := now()
	src.CreatedAt, src.UpdatedAt, src.NextPollAt = t, t, t
	if src.ScheduleMode == "" {
		src.ScheduleMode = model.ScheduleAdaptive
	}
	if src.ReliabilityTier == 0 {
		src.ReliabilityTier = defaultTier
	}
	src.NextPollReason, src.NextPollKind = ReasonNew, ""
	err := s.db.GetContext(ctx, &src.ID, s.q(`INSERT INTO feed_sources
		(workspace_id, url, source_type, title, is_active, polling_interval_minutes, track_changes, schedule_mode,
		next_poll_at, next_poll_reason, created_at, updated_at, reliability_tier, reliability_tier_manual, decay_class, category, site_url)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		src.WorkspaceID, src.URL, src.SourceType, src.Title, src.IsActive, src.PollingIntervalMinutes, src.TrackChanges,
		src.ScheduleMode, src.NextPollAt, src.NextPollReason, src.CreatedAt, src.UpdatedAt,
		src.ReliabilityTier, src.ReliabilityTierManual, src.DecayClass, src.Category, src.SiteURL)
	if dberr.IsUniqueViolation(err) {
		return fmt.Errorf("source %s in workspace %d: %w", src.URL, src.WorkspaceID, model.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create source %s: %w", src.URL, err)
	}
	return nil
}

// GetSource reads a source of a workspace (workspaceID 0: any workspace).
func (s *Store) GetSource(ctx context.Context, workspaceID, id int64) (*model.FeedSource, error) {
	var src model.FeedSource
	err := s.db.GetContext(ctx, &src, s.q(`SELECT `+sourceColumns+` FROM feed_sources WHERE id = ? AND (? = 0 OR workspace_id = ?)`),
		id, workspaceID, workspaceID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("source %d: %w", id, model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get source %d: %w", id, err)
	}
	one := []model.FeedSource{src}
	if err := s.fillWebSub(ctx, one); err != nil {
		return nil, err
	}
	return &one[0], nil
}

// ListSources returns a workspace's sources (workspaceID 0: all), oldest first.
func (s *Store) ListSources(ctx context.Context, workspaceID int64) ([]model.FeedSource, error) {
	q, args := sourcesQuery(workspaceID)
	var out []model.FeedSource
	err := s.db.SelectContext(ctx, &out, s.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("list sources of workspace %d: %w", workspaceID, err)
	}
	if err := s.fillWebSub(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// sourcesQuery is ListSources' statement and its arguments. The
// workspace is left out for all of them rather than switched off with
// "? = 0 OR", which no index serves: one workspace's sources were found
// by reading every workspace's.
func sourcesQuery(workspaceID int64) (string, []any) {
	if workspaceID == 0 {
		return `SELECT ` + sourceColumns + ` FROM feed_sources ORDER BY id`, nil
	}
	return `SELECT ` + sourceColumns + ` FROM feed_sources WHERE workspace_id = ? ORDER BY id`, []any{workspaceID}
}

// UpdateSource applies a patch in one statement. Turning an inactive
// source active resets its failure counter and makes it due at once, so an
// admin can revive a source the failure limit had paused.
func (s *Store) UpdateSource(ctx context.Context, workspaceID, id int64, p model.SourcePatch) (*model.FeedSource, error) {
	t := now()
	revive := p.IsActive != nil && *p.IsActive
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE feed_sources SET
		title = COALESCE(?, title),
		polling_interval_minutes = COALESCE(?, polling_interval_minutes),
		track_changes = COALESCE(?, track_changes),
		schedule_mode = COALESCE(?, schedule_mode),
		reliability_tier = COALESCE(?, reliability_tier),
		reliability_tier_manual = COALESCE(?, reliability_tier_manual),
		decay_class = CASE WHEN ? THEN NULLIF(?, '') ELSE decay_class END,
		consecutive_failures = CASE WHEN ? AND NOT is_active THEN 0 ELSE consecutive_failures END,
		next_poll_reason = CASE WHEN ? AND NOT is_active THEN ? ELSE next_poll_reason END,
		next_poll_kind = CASE WHEN ? AND NOT is_active THEN '' ELSE next_poll_kind END,
		next_poll_at = CASE WHEN ? AND NOT is_active THEN ? ELSE next_poll_at END,
		is_active = COALESCE(?, is_active),
		updated_at = ?
		WHERE id = ? AND workspace_id = ?`),
		p.Title, p.PollingIntervalMinutes, p.TrackChanges, p.ScheduleMode, p.Tier, p.TierManual, p.DecayClass != nil, p.DecayClass,
		revive, revive, ReasonActivated, revive, revive, t,
		p.IsActive, t, id, workspaceID)
	if err := byID(res, err, "update source", "source", id); err != nil {
		return nil, err
	}
	return s.GetSource(ctx, workspaceID, id)
}

// DeleteSource removes a source and its poll history. Its articles and
// content items stay (their feed_source_id becomes NULL): what was promoted
// remains readable.
func (s *Store) DeleteSource(ctx context.Context, workspaceID, id int64) error {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM feed_sources WHERE id = ? AND workspace_id = ?`), id, workspaceID)
	return byID(res, err, "delete source", "source", id)
}

// CountDue counts sources that are due now (the backlog metric).
func (s *Store) CountDue(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM feed_sources
		WHERE `+s.dueCondition("?")), now())
	if err != nil {
		return 0, fmt.Errorf("count due sources: %w", err)
	}
	return n, nil
}

// ClaimDue leases up to limit due sources for owner: it moves their
// next_poll_at to the end of the lease, so a source stays claimed without
// any extra state, and one whose daemon died becomes due again by itself.
// On PostgreSQL, replicas claim side by side without ever taking the same
// source (see postgres.claimDue).
func (s *Store) ClaimDue(ctx context.Context, owner string, limit int, lease time.Duration) ([]model.FeedSource, error) {
	t := now()
	var out []model.FeedSource
	err := s.writer.SelectContext(ctx, &out, s.claimDueQuery(), t.Add(lease), owner, t, limit)
	s.noteWrite(ctx, "claiming sources", err)
	if err != nil {
		return nil, fmt.Errorf("claim due sources: %w", err)
	}
	return out, nil
}

// claimDueQuery is ClaimDue's statement in the dialect (see claimDue in
// postgres.go and sqlite.go).
func (s *Store) claimDueQuery() string { return s.d.claimDue() }

// dueCondition is "due at the time in param" stated exactly as the partial
// index feed_sources_due is, so that the planner reads the index instead of
// the table.
func (s *Store) dueCondition(param string) string { return s.d.dueCondition(param) }

// ExplainClaimDue runs ClaimDue's statement under EXPLAIN ANALYZE in a
// transaction it rolls back, and returns the plan: the benchmark's proof
// that claiming reads the due index, not the table.
func (s *Store) ExplainClaimDue(ctx context.Context, limit int) (string, error) {
	prefix := s.d.explainPrefix()
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("explain claim: %w", err)
	}
	defer tx.Rollback()
	t := now()
	rows, err := tx.QueryContext(ctx, prefix+s.claimDueQuery(), t.Add(time.Minute), "explain", t, limit)
	if err != nil {
		return "", fmt.Errorf("explain claim: %w", err)
	}
	plan, err := planText(rows)
	if err != nil {
		return "", fmt.Errorf("explain claim: %w", err)
	}
	return plan, nil
}

// planText reads the rows of an EXPLAIN as text, a line per row (each
// row's last column: the plan line on PostgreSQL, the step's detail on
// SQLite), and closes them.
func planText(rows *sql.Rows) (string, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		lines = append(lines, fmt.Sprint(vals[len(vals)-1]))
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// ClaimSource leases one source for an immediate poll, due or not (the
// API's "poll now"). It refuses a source whose lease is still held.
func (s *Store) ClaimSource(ctx context.Context, workspaceID, id int64, owner string, lease time.Duration) (*model.FeedSource, error) {
	t := now()
	var src model.FeedSource
	err := s.writer.GetContext(ctx, &src, s.q(`UPDATE feed_sources SET due_at = ?, next_poll_at = ?, lease_until = ?, lease_owner = ?
		WHERE id = ? AND (? = 0 OR workspace_id = ?) AND (lease_until IS NULL OR `+s.asTime("lease_until")+` <= `+s.asTime("?")+`)
		RETURNING `+sourceColumns), t, t.Add(lease), t.Add(lease), owner, id, workspaceID, workspaceID, t)
	if errors.Is(err, sql.ErrNoRows) {
		s.noteWrite(ctx, "claiming sources", nil)
		if _, gerr := s.GetSource(ctx, workspaceID, id); gerr != nil {
			return nil, gerr
		}
		return nil, fmt.Errorf("source %d: %w", id, model.ErrLeased)
	}
	s.noteWrite(ctx, "claiming sources", err)
	if err != nil {
		return nil, fmt.Errorf("claim source %d: %w", id, err)
	}
	return &src, nil
}

// ReleaseLeases gives back the sources owner still holds, due at once: a
// daemon that stops before polling them lets others take them now.
func (s *Store) ReleaseLeases(ctx context.Context, owner string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	t := now()
	q, args, err := inQuery(`UPDATE feed_sources SET next_poll_at = ?, lease_until = NULL, lease_owner = ''
		WHERE lease_owner = ? AND id IN (?)`, t, owner, ids)
	if err != nil {
		return err
	}
	if _, err := s.writer.ExecContext(ctx, s.q(q), args...); err != nil {
		return fmt.Errorf("release %d leases: %w", len(ids), err)
	}
	return nil
}

// SourcesMentioning returns the workspace's sources whose URL contains one
// of the given strings, compared case-insensitively: the candidates a
// caller normalises to find a source that is the same URL written another
// way (host case, default port, fragment, ...), stored before source URLs
// were stored normalised. Matching on the host keeps this to a handful of
// rows instead of every source of the workspace.
func (s *Store) SourcesMentioning(ctx context.Context, workspaceID int64, parts ...string) ([]model.FeedSource, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	var conds []string
	args := []any{workspaceID}
	for _, p := range parts {
		conds = append(conds, `LOWER(url) LIKE ? ESCAPE '\'`)
		args = append(args, "%"+likeEscaper.Replace(strings.ToLower(p))+"%")
	}
	var out []model.FeedSource
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT `+sourceColumns+` FROM feed_sources
		WHERE workspace_id = ? AND (`+strings.Join(conds, " OR ")+`) ORDER BY id`), args...)
	if err != nil {
		return nil, fmt.Errorf("look up sources of workspace %d by url: %w", workspaceID, err)
	}
	return out, nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// CountUnhealthySources counts failing and disabled sources by source
// type, for the failure gauges the scheduler refreshes at every tick. It
// reads the partial index feed_sources_unhealthy, whose condition it
// repeats, so the cost follows the unhealthy sources, not all of them.
func (s *Store) CountUnhealthySources(ctx context.Context) ([]model.SourceHealth, error) {
	var out []model.SourceHealth
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT source_type,
		SUM(CASE WHEN `+s.d.activeCondition()+` AND consecutive_failures < ? THEN 1 ELSE 0 END) AS failing,
		SUM(CASE WHEN `+s.d.activeCondition()+` AND consecutive_failures < ? THEN 0 ELSE 1 END) AS disabled
		FROM feed_sources WHERE `+s.d.unhealthyCondition()+` GROUP BY source_type ORDER BY source_type`),
		model.MaxConsecutiveFailures, model.MaxConsecutiveFailures)
	if err != nil {
		return nil, fmt.Errorf("count unhealthy sources: %w", err)
	}
	return out, nil
}
