// Package webhookstest helps test webhook delivery: an in-memory Outbox,
// the behaviour every Outbox must have as a reusable test, and a receiver
// that checks signatures and counts deliveries by id.
package webhookstest

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Delivery states.
const (
	StatusPending   = "pending"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// Row is one delivery as the outbox holds it.
type Row struct {
	model.PendingDelivery
	Status     string
	NextAt     time.Time
	LeaseOwner string
	LeaseUntil time.Time
	// History is every recorded attempt, oldest first.
	History []model.DeliveryAttempt
	Reason  string
}

// Hook is a webhook as the outbox knows it.
type Hook struct {
	ID, WorkspaceID int64
	URL, Secret     string
	Disabled        bool
	DisabledReason  string
}

// MemoryOutbox is an Outbox in memory, with the semantics the store's
// must have. It is safe for concurrent use.
type MemoryOutbox struct {
	mu    sync.Mutex
	rows  map[string]*Row
	hooks map[int64]*Hook
	next  int64
}

// NewMemoryOutbox returns an empty outbox.
func NewMemoryOutbox() *MemoryOutbox {
	return &MemoryOutbox{rows: map[string]*Row{}, hooks: map[int64]*Hook{}}
}

// AddWebhook registers a webhook and returns its id.
func (o *MemoryOutbox) AddWebhook(workspaceID int64, url, secret string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next++
	o.hooks[o.next] = &Hook{ID: o.next, WorkspaceID: workspaceID, URL: url, Secret: secret}
	return o.next
}

// Enqueue writes a pending delivery due at nextAt, as the promotion's
// transaction would.
func (o *MemoryOutbox) Enqueue(webhookID int64, id, event string, payload []byte, createdAt, nextAt time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rows[id] = &Row{PendingDelivery: model.PendingDelivery{ID: id, WebhookID: webhookID, Event: event,
		Payload: append([]byte(nil), payload...), CreatedAt: createdAt}, Status: StatusPending, NextAt: nextAt}
}

// Row returns a copy of delivery id's row.
func (o *MemoryOutbox) Row(id string) (Row, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.rows[id]
	if !ok {
		return Row{}, false
	}
	c := *r
	c.History = append([]model.DeliveryAttempt(nil), r.History...)
	return c, true
}

// Hook returns a copy of webhook id.
func (o *MemoryOutbox) Hook(id int64) Hook {
	o.mu.Lock()
	defer o.mu.Unlock()
	return *o.hooks[id]
}

// ClaimDue implements webhooks.Outbox.
func (o *MemoryOutbox) ClaimDue(_ context.Context, owner string, now time.Time, limit int, lease time.Duration) ([]model.PendingDelivery, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var due []*Row
	for _, r := range o.rows {
		h := o.hooks[r.WebhookID]
		if r.Status != StatusPending || h == nil || h.Disabled || r.NextAt.After(now) || r.LeaseUntil.After(now) {
			continue
		}
		due = append(due, r)
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].NextAt.Equal(due[j].NextAt) {
			return due[i].NextAt.Before(due[j].NextAt)
		}
		return due[i].ID < due[j].ID
	})
	if len(due) > limit {
		due = due[:limit]
	}
	out := make([]model.PendingDelivery, 0, len(due))
	for _, r := range due {
		r.LeaseOwner, r.LeaseUntil = owner, now.Add(lease)
		h := o.hooks[r.WebhookID]
		d := r.PendingDelivery
		d.URL, d.Secret, d.WorkspaceID = h.URL, h.Secret, h.WorkspaceID
		d.Attempts = len(r.History)
		out = append(out, d)
	}
	return out, nil
}

// held returns id's row when owner holds its lease and it is pending.
func (o *MemoryOutbox) held(owner, id string) (*Row, error) {
	r := o.rows[id]
	if r == nil || r.Status != StatusPending || r.LeaseOwner != owner {
		return nil, model.ErrDeliveryLeaseLost
	}
	return r, nil
}

// MarkDelivered implements webhooks.Outbox.
func (o *MemoryOutbox) MarkDelivered(_ context.Context, owner, id string, a model.DeliveryAttempt) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, err := o.held(owner, id)
	if err != nil {
		return err
	}
	r.History = append(r.History, a)
	r.Status, r.LeaseOwner, r.LeaseUntil = StatusDelivered, "", time.Time{}
	return nil
}

// MarkRetry implements webhooks.Outbox.
func (o *MemoryOutbox) MarkRetry(_ context.Context, owner, id string, nextAt time.Time, a model.DeliveryAttempt) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, err := o.held(owner, id)
	if err != nil {
		return err
	}
	r.History = append(r.History, a)
	r.NextAt, r.LeaseOwner, r.LeaseUntil = nextAt, "", time.Time{}
	return nil
}

// MarkFailed implements webhooks.Outbox.
func (o *MemoryOutbox) MarkFailed(_ context.Context, owner, id string, a model.DeliveryAttempt, reason string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, err := o.held(owner, id)
	if err != nil {
		return err
	}
	r.History = append(r.History, a)
	r.Status, r.Reason, r.LeaseOwner, r.LeaseUntil = StatusFailed, reason, "", time.Time{}
	return nil
}

// DisableWebhook implements webhooks.Outbox.
func (o *MemoryOutbox) DisableWebhook(_ context.Context, webhookID int64, reason string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if h := o.hooks[webhookID]; h != nil {
		h.Disabled, h.DisabledReason = true, reason
	}
	return nil
}
