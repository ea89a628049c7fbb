package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Outbox is the webhook outbox on the webhook_deliveries table: the
// webhooks.Outbox the delivery worker claims from and records into. Its
// rows are written by the promotion's own transaction (see
// enqueueDeliveries), so a promotion and its deliveries are stored
// together or not at all.
type Outbox struct{ s *Store }

// Outbox returns the store's webhook outbox.
func (s *Store) Outbox() *Outbox { return &Outbox{s: s} }

// claimedDelivery is a row ClaimDue returns.
type claimedDelivery struct {
	ID          string    `db:"id"`
	WebhookID   int64     `db:"webhook_id"`
	WorkspaceID int64     `db:"workspace_id"`
	Event       string    `db:"event"`
	URL         string    `db:"url"`
	Secret      string    `db:"secret"`
	Payload     []byte    `db:"payload"`
	Attempts    int       `db:"attempts"`
	NextAt      time.Time `db:"next_attempt_at"`
	CreatedAt   time.Time `db:"created_at"`
}

// ClaimDue implements webhooks.Outbox: one statement leases the due rows
// of enabled webhooks (see claimDeliveries in postgres.go and sqlite.go)
// and returns them with their webhook's URL and secret as they are now.
func (o *Outbox) ClaimDue(ctx context.Context, owner string, now time.Time, limit int, lease time.Duration) ([]model.PendingDelivery, error) {
	var rows []claimedDelivery
	err := o.s.db.SelectContext(ctx, &rows, o.s.d.claimDeliveries(), owner, now.Add(lease).UTC(), now.UTC(), limit)
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	// RETURNING keeps no order.
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].NextAt.Equal(rows[j].NextAt) {
			return rows[i].NextAt.Before(rows[j].NextAt)
		}
		return rows[i].ID < rows[j].ID
	})
	out := make([]model.PendingDelivery, len(rows))
	for i, r := range rows {
		out[i] = model.PendingDelivery{ID: r.ID, WebhookID: r.WebhookID, WorkspaceID: r.WorkspaceID, Event: r.Event,
			URL: r.URL, Secret: r.Secret, Payload: r.Payload, Attempts: r.Attempts, CreatedAt: r.CreatedAt}
	}
	return out, nil
}

// recordAttempt is the SET clause every Mark* shares: the attempt counted
// and described, the lease given back.
const recordAttempt = `attempts = attempts + 1, last_attempt_at = ?, last_status_code = ?, last_error = ?,
	lease_owner = NULL, lease_until = NULL`

// heldBy is the WHERE clause of every Mark*: the row is pending and still
// leased to owner.
const heldBy = ` WHERE id = ? AND status = 'pending' AND lease_owner = ?`

func attemptArgs(a model.DeliveryAttempt) []any {
	var code *int
	if a.StatusCode != 0 {
		code = &a.StatusCode
	}
	at := a.At
	if at.IsZero() {
		at = now()
	}
	return []any{at.UTC(), code, truncate(a.Error, maxErrorBytes)}
}

// mark runs one Mark* update; no row updated is webhooks.ErrLeaseLost.
func (o *Outbox) mark(ctx context.Context, what, id, owner, set string, args ...any) error {
	args = append(args, id, owner)
	res, err := o.s.db.ExecContext(ctx, o.s.q(`UPDATE webhook_deliveries SET `+set+heldBy), args...)
	if err != nil {
		return fmt.Errorf("record webhook delivery %s %s: %w", id, what, err)
	}
	return leaseHeld(res, id)
}

func leaseHeld(res sql.Result, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("record webhook delivery %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("webhook delivery %s: %w", id, model.ErrDeliveryLeaseLost)
	}
	return nil
}

// MarkDelivered implements webhooks.Outbox.
func (o *Outbox) MarkDelivered(ctx context.Context, owner, id string, a model.DeliveryAttempt) error {
	args := append([]any{model.DeliveryDelivered, now()}, attemptArgs(a)...)
	return o.mark(ctx, "delivered", id, owner, `status = ?, delivered_at = ?, `+recordAttempt, args...)
}

// MarkRetry implements webhooks.Outbox.
func (o *Outbox) MarkRetry(ctx context.Context, owner, id string, nextAt time.Time, a model.DeliveryAttempt) error {
	args := append([]any{nextAt.UTC()}, attemptArgs(a)...)
	return o.mark(ctx, "retry", id, owner, `next_attempt_at = ?, `+recordAttempt, args...)
}

// MarkFailed implements webhooks.Outbox.
func (o *Outbox) MarkFailed(ctx context.Context, owner, id string, a model.DeliveryAttempt, reason string) error {
	args := append([]any{model.DeliveryFailed, now(), truncate(reason, maxErrorBytes)}, attemptArgs(a)...)
	return o.mark(ctx, "failed", id, owner, `status = ?, failed_at = ?, failure_reason = ?, `+recordAttempt, args...)
}

// DisableWebhook implements webhooks.Outbox: the receiver said the hook is
// gone (410). Its pending deliveries stay for when it is enabled again.
func (o *Outbox) DisableWebhook(ctx context.Context, webhookID int64, reason string) error {
	_, err := o.s.db.ExecContext(ctx, o.s.q(`UPDATE webhooks SET is_active = ?, disabled_reason = ?, updated_at = ? WHERE id = ?`),
		false, truncate(reason, maxErrorBytes), now(), webhookID)
	if err != nil {
		return fmt.Errorf("disable webhook %d: %w", webhookID, err)
	}
	return nil
}
