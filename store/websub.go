package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/dberr"
)

// subColumns are a subscription's columns, read from subFrom: its
// callback token and secret come from the table of secrets (see
// secretTable).
const subColumns = `w.id, w.feed_source_id, w.hub_url, w.topic_url, k.callback_token, k.secret, w.state, w.pending_mode,
	w.lease_seconds, w.lease_expires_at, w.next_request_at, w.requests, w.failures, w.verifications, w.deliveries, w.rejected,
	w.last_error, w.last_delivery_at, w.created_at, w.updated_at`

// subFrom joins a subscription (w) to its secrets (k).
func (s *Store) subFrom() string {
	return `websub_subscriptions w JOIN ` + s.d.secretTable("websub_secrets") + ` k ON k.subscription_id = w.id`
}

// WebSubCandidates are active feed sources that advertise a hub and have
// no subscription yet.
func (s *Store) WebSubCandidates(ctx context.Context, limit int) ([]model.FeedSource, error) {
	var out []model.FeedSource
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT `+sourceColumns+` FROM feed_sources f
		WHERE is_active = ? AND source_type = ? AND hub_url <> ''
		AND NOT EXISTS (SELECT 1 FROM websub_subscriptions w WHERE w.feed_source_id = f.id)
		ORDER BY id LIMIT ?`), true, model.SourceRSS, limit)
	if err != nil {
		return nil, fmt.Errorf("list sources to subscribe: %w", err)
	}
	return out, nil
}

// CreateSubscription stores a new subscription, due at once. A source
// that already has one (another replica was quicker) is ErrConflict.
func (s *Store) CreateSubscription(ctx context.Context, sub *model.Subscription) error {
	t := now()
	sub.CreatedAt, sub.UpdatedAt = t, t
	if sub.State == "" {
		sub.State = model.SubPending
	}
	err := s.inTx(ctx, fmt.Sprintf("create subscription of source %d", sub.SourceID), func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &sub.ID, s.q(`INSERT INTO websub_subscriptions
			(feed_source_id, hub_url, topic_url, state, next_request_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			sub.SourceID, sub.HubURL, sub.TopicURL, sub.State, sub.NextRequestAt.UTC(), t, t); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO `+s.d.secretTable("websub_secrets")+` (subscription_id, callback_token, secret)
			VALUES (?, ?, ?)`), sub.ID, sub.CallbackToken, sub.Secret)
		return err
	})
	if dberr.IsUniqueViolation(err) {
		return fmt.Errorf("subscription of source %d: %w", sub.SourceID, model.ErrConflict)
	}
	return err
}

// DueSubscriptions are the subscriptions whose next request is due at t,
// with their sources.
func (s *Store) DueSubscriptions(ctx context.Context, t time.Time, limit int) ([]model.SubscriptionTask, error) {
	var out []model.SubscriptionTask
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT `+subColumns+`,
		COALESCE(f.is_active, ?) AS source_active, COALESCE(f.url, '') AS source_url,
		COALESCE(f.hub_url, '') AS source_hub, COALESCE(f.self_url, '') AS source_self
		FROM `+s.subFrom()+` LEFT JOIN feed_sources f ON f.id = w.feed_source_id
		WHERE `+s.asTime("w.next_request_at")+` <= `+s.asTime("?")+` ORDER BY w.next_request_at LIMIT ?`),
		false, t.UTC(), limit)
	if err != nil {
		return nil, fmt.Errorf("list due subscriptions: %w", err)
	}
	return out, nil
}

// ClaimSubscriptionRequest records that a request is about to be sent for
// sub, so the hub's verification is expected; it returns false when
// another replica claimed the same due request first (sub's
// next_request_at moved).
func (s *Store) ClaimSubscriptionRequest(ctx context.Context, sub model.Subscription, r model.SubscriptionRequest) (bool, error) {
	claimed := false
	err := s.inTx(ctx, fmt.Sprintf("claim request of subscription %d", sub.ID), func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE websub_subscriptions SET pending_mode = ?, hub_url = ?, topic_url = ?,
			next_request_at = ?, requests = requests + 1, updated_at = ?
			WHERE id = ? AND `+s.asTime("next_request_at")+` = `+s.asTime("?")),
			r.Mode, r.HubURL, r.TopicURL, r.NextRequestAt.UTC(), now(), sub.ID, sub.NextRequestAt.UTC())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return err
		}
		claimed = true
		_, err = tx.ExecContext(ctx, s.q(`UPDATE `+s.d.secretTable("websub_secrets")+` SET callback_token = ?, secret = ?
			WHERE subscription_id = ?`), r.CallbackToken, r.Secret, sub.ID)
		return err
	})
	if err != nil {
		return false, err
	}
	return claimed, nil
}

// SubscriptionRequestFailed records a request the hub refused or that
// never reached it; the next try is at retryAt.
func (s *Store) SubscriptionRequestFailed(ctx context.Context, id int64, msg string, retryAt time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE websub_subscriptions SET failures = failures + 1, last_error = ?,
		next_request_at = ?, updated_at = ? WHERE id = ?`), truncate(msg, maxErrorBytes), retryAt.UTC(), now(), id)
	if err != nil {
		return fmt.Errorf("record failed request of subscription %d: %w", id, err)
	}
	return nil
}

// SubscriptionByToken finds the subscription a callback URL names.
func (s *Store) SubscriptionByToken(ctx context.Context, token string) (*model.Subscription, error) {
	var sub model.Subscription
	err := s.db.GetContext(ctx, &sub, s.q(`SELECT `+subColumns+` FROM `+s.subFrom()+` WHERE k.callback_token = ?`), token)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("subscription: %w", model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("find subscription by callback: %w", err)
	}
	return &sub, nil
}

// SubscriptionOfSource is a source's subscription.
func (s *Store) SubscriptionOfSource(ctx context.Context, sourceID int64) (*model.Subscription, error) {
	var sub model.Subscription
	err := s.db.GetContext(ctx, &sub, s.q(`SELECT `+subColumns+` FROM `+s.subFrom()+` WHERE w.feed_source_id = ?`), sourceID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("subscription of source %d: %w", sourceID, model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get subscription of source %d: %w", sourceID, err)
	}
	return &sub, nil
}

// VerifySubscription records the hub's verified subscription: the lease
// it granted, when to renew, and, on the source, until when its items are
// pushed (the scheduler's safety polling follows from it).
func (s *Store) VerifySubscription(ctx context.Context, sub model.Subscription, leaseSeconds int, expires, renewAt time.Time) error {
	return s.inTx(ctx, "verify subscription", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE websub_subscriptions SET state = ?, pending_mode = '', lease_seconds = ?,
			lease_expires_at = ?, next_request_at = ?, verifications = verifications + 1, failures = 0, last_error = '',
			updated_at = ? WHERE id = ?`), model.SubVerified, leaseSeconds, expires.UTC(), renewAt.UTC(), now(), sub.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE feed_sources SET websub_subscribed_until = ? WHERE id = ?`),
			expires.UTC(), sub.SourceID)
		return err
	})
}

// EndSubscription puts sub in a state without pushes (denied, expired,
// unsubscribed) with a reason, its next request at next (zero: a year
// away, the source being gone), and takes the source back to polling.
func (s *Store) EndSubscription(ctx context.Context, sub model.Subscription, state, reason string, next time.Time) error {
	if next.IsZero() {
		next = now().AddDate(1, 0, 0)
	}
	return s.inTx(ctx, "end subscription", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE websub_subscriptions SET state = ?, pending_mode = '', last_error = ?,
			next_request_at = ?, updated_at = ? WHERE id = ?`), state, truncate(reason, maxErrorBytes), next.UTC(), now(), sub.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE feed_sources SET websub_subscribed_until = NULL WHERE id = ?`), sub.SourceID)
		return err
	})
}

// DeleteSubscription forgets a subscription (its source is gone and the
// hub was told, or could not be).
func (s *Store) DeleteSubscription(ctx context.Context, id int64) error {
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM websub_subscriptions WHERE id = ?`), id); err != nil {
		return fmt.Errorf("delete subscription %d: %w", id, err)
	}
	return nil
}

// SubscriptionDueNow makes a source's subscription's next request due at
// once: the source was paused or deleted, and the hub is to be told.
func (s *Store) SubscriptionDueNow(ctx context.Context, sourceID int64) error {
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE websub_subscriptions SET next_request_at = ?, updated_at = ?
		WHERE feed_source_id = ?`), now(), now(), sourceID)
	if err != nil {
		return fmt.Errorf("schedule unsubscribe of source %d: %w", sourceID, err)
	}
	return nil
}

// ExpireSubscriptions marks verified subscriptions whose lease ended at t
// expired (their renewal did not succeed in time).
func (s *Store) ExpireSubscriptions(ctx context.Context, t time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE websub_subscriptions SET state = ?, updated_at = ?
		WHERE state = ? AND `+s.asTime("lease_expires_at")+` <= `+s.asTime("?")), model.SubExpired, now(), model.SubVerified, t.UTC())
	if err != nil {
		return 0, fmt.Errorf("expire subscriptions: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// RecordDelivery counts a content distribution the callback took
// (stored) or refused to store.
func (s *Store) RecordDelivery(ctx context.Context, id int64, stored bool) error {
	col := "rejected"
	if stored {
		col = "deliveries"
	}
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE websub_subscriptions SET `+col+` = `+col+` + 1, last_delivery_at = ?,
		updated_at = ? WHERE id = ?`), now(), now(), id)
	if err != nil {
		return fmt.Errorf("count delivery of subscription %d: %w", id, err)
	}
	return nil
}

// CountSubscriptions counts subscriptions by state.
func (s *Store) CountSubscriptions(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		State string `db:"state"`
		N     int    `db:"n"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT state, COUNT(*) AS n FROM websub_subscriptions GROUP BY state`); err != nil {
		return nil, fmt.Errorf("count subscriptions: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.State] = r.N
	}
	return out, nil
}

// fillWebSub sets the WebSub status of each source that has a
// subscription.
func (s *Store) fillWebSub(ctx context.Context, srcs []model.FeedSource) error {
	if len(srcs) == 0 {
		return nil
	}
	q, args, err := inQuery(`SELECT feed_source_id, state, hub_url, topic_url, lease_expires_at, deliveries, rejected, last_error
		FROM websub_subscriptions WHERE feed_source_id IN (?)`, sourceIDs(srcs))
	if err != nil {
		return fmt.Errorf("read subscriptions: %w", err)
	}
	var rows []struct {
		SourceID  int64      `db:"feed_source_id"`
		State     string     `db:"state"`
		Hub       string     `db:"hub_url"`
		Topic     string     `db:"topic_url"`
		Expires   *time.Time `db:"lease_expires_at"`
		Delivered int        `db:"deliveries"`
		Rejected  int        `db:"rejected"`
		LastError string     `db:"last_error"`
	}
	if err := s.db.SelectContext(ctx, &rows, s.q(q), args...); err != nil {
		return fmt.Errorf("read subscriptions: %w", err)
	}
	by := make(map[int64]*model.WebSubStatus, len(rows))
	for _, r := range rows {
		by[r.SourceID] = &model.WebSubStatus{State: r.State, HubURL: r.Hub, TopicURL: r.Topic, LeaseExpiresAt: utcPtr(r.Expires),
			Deliveries: r.Delivered, Rejected: r.Rejected, LastError: r.LastError}
	}
	for i := range srcs {
		srcs[i].WebSub = by[srcs[i].ID]
	}
	return nil
}

func sourceIDs(srcs []model.FeedSource) []int64 {
	ids := make([]int64, len(srcs))
	for i, s := range srcs {
		ids[i] = s.ID
	}
	return ids
}

// inTx runs fn in a transaction, committed when it returns nil.
func (s *Store) inTx(ctx context.Context, what string, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", what, err)
	}
	return nil
}
