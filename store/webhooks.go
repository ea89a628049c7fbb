package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// webhookColumns are a webhook's columns. Its secret is not one of them:
// it lives in a table of its own (see secretTable), read only by the
// outbox's claim.
const webhookColumns = `id, workspace_id, url, events, is_active, disabled_reason, created_at, updated_at`

const deliveryLogColumns = `id, webhook_id, event, content_item_id, status, attempts, next_attempt_at, last_attempt_at,
	last_status_code, last_error, failure_reason, delivered_at, failed_at, created_at`

// splitWebhook fills w.Events from the stored list.
func splitWebhook(w *model.Webhook) {
	w.Events = splitEvents(w.EventList)
}

// splitEvents reads the stored comma-separated event list.
func splitEvents(list string) []string {
	out := []string{}
	for _, e := range strings.Split(list, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// CreateWebhook stores a new, enabled webhook of the workspace and its
// secret. With limit > 0, a workspace that has limit webhooks already
// gets model.ErrLimit: the count and the insert are one transaction that holds
// the workspace's row (PostgreSQL) or the write lock (SQLite), so
// concurrent creates cannot all pass the count.
func (s *Store) CreateWebhook(ctx context.Context, workspaceID int64, url, secret string, events []string, limit int) (*model.Webhook, error) {
	t := now()
	w := &model.Webhook{WorkspaceID: workspaceID, URL: url, Secret: secret, EventList: strings.Join(events, ","), IsActive: true,
		CreatedAt: t, UpdatedAt: t}
	err := s.inTx(ctx, fmt.Sprintf("create webhook of workspace %d", workspaceID), func(tx *sqlx.Tx) error {
		if limit > 0 {
			var n int
			if err := tx.GetContext(ctx, &n, s.q(s.d.lockWorkspace()), workspaceID); err != nil {
				return fmt.Errorf("lock workspace: %w", err)
			}
			if err := tx.GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM webhooks WHERE workspace_id = ?`), workspaceID); err != nil {
				return err
			}
			if n >= limit {
				return fmt.Errorf("the workspace has %d webhooks, the most it may have: %w", n, model.ErrLimit)
			}
		}
		if err := tx.GetContext(ctx, &w.ID, s.q(`INSERT INTO webhooks (workspace_id, url, events, is_active, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`), workspaceID, url, w.EventList, true, t, t); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO `+s.d.secretTable("webhook_secrets")+` (webhook_id, secret) VALUES (?, ?)`),
			w.ID, secret)
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("workspace %d: %w", workspaceID, model.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	splitWebhook(w)
	return w, nil
}

// GetWebhook reads a webhook of the workspace.
func (s *Store) GetWebhook(ctx context.Context, workspaceID, id int64) (*model.Webhook, error) {
	var w model.Webhook
	err := s.db.GetContext(ctx, &w, s.q(`SELECT `+webhookColumns+` FROM webhooks WHERE id = ? AND workspace_id = ?`), id, workspaceID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("webhook %d: %w", id, model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get webhook %d: %w", id, err)
	}
	splitWebhook(&w)
	return &w, nil
}

// ListWebhooks returns the workspace's webhooks, oldest first.
func (s *Store) ListWebhooks(ctx context.Context, workspaceID int64) ([]model.Webhook, error) {
	var out []model.Webhook
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT `+webhookColumns+` FROM webhooks WHERE workspace_id = ? ORDER BY id`), workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks of workspace %d: %w", workspaceID, err)
	}
	for i := range out {
		splitWebhook(&out[i])
	}
	return out, nil
}

// SetWebhookActive enables or disables a webhook. Enabling clears the
// reason it was disabled for; its pending deliveries go out again.
func (s *Store) SetWebhookActive(ctx context.Context, workspaceID, id int64, active bool, reason string) (*model.Webhook, error) {
	if active {
		reason = ""
	}
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE webhooks SET is_active = ?, disabled_reason = ?, updated_at = ?
		WHERE id = ? AND workspace_id = ?`), active, reason, now(), id, workspaceID)
	if err := byID(res, err, "update webhook", "webhook", id); err != nil {
		return nil, err
	}
	return s.GetWebhook(ctx, workspaceID, id)
}

// DeleteWebhook removes a webhook and its delivery log; deliveries not
// yet sent are dropped with it.
func (s *Store) DeleteWebhook(ctx context.Context, workspaceID, id int64) error {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM webhooks WHERE id = ? AND workspace_id = ?`), id, workspaceID)
	return byID(res, err, "delete webhook", "webhook", id)
}

// ListDeliveries returns a page of the webhook's delivery log, newest
// first. The webhook must belong to the workspace (model.ErrNotFound otherwise).
func (s *Store) ListDeliveries(ctx context.Context, workspaceID, webhookID int64, f model.DeliveryFilter) ([]model.WebhookDelivery, error) {
	if _, err := s.GetWebhook(ctx, workspaceID, webhookID); err != nil {
		return nil, err
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	out := []model.WebhookDelivery{}
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT `+deliveryLogColumns+` FROM webhook_deliveries
		WHERE webhook_id = ? AND (? = '' OR status = ?) AND (? = '' OR id < ?)
		ORDER BY id DESC LIMIT ?`), webhookID, f.Status, f.Status, f.Before, f.Before, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries of webhook %d: %w", webhookID, err)
	}
	return out, nil
}
