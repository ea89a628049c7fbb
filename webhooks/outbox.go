package webhooks

import (
	"context"
	"errors"
	"time"
)

// Delivery is one event for one webhook: an outbox row, with the target
// and secret of its webhook as they are at claim time.
type Delivery struct {
	// ID is the delivery id sent on every attempt (X-Feedpoller-Delivery).
	ID          string
	WebhookID   int64
	WorkspaceID int64
	Event       string
	URL         string
	Secret      string
	// Payload is the raw JSON body, fixed when the row was written.
	Payload []byte
	// Attempts is how many attempts were recorded before this claim.
	Attempts int
	// CreatedAt is when the row was written (the event): the give-up age
	// counts from it.
	CreatedAt time.Time
}

// ErrLeaseLost is what Mark* return when owner no longer holds the row's
// lease (it ran out and another worker claimed it) or the row is already
// delivered or failed: the record is not written, and the worker moves on.
var ErrLeaseLost = errors.New("webhook delivery lease lost")

// Outbox is where deliveries wait; the store implements it on the
// webhook_deliveries table. Rows are written by the event's own
// transaction, so an event and its deliveries exist together or not at
// all. Every method is safe for concurrent use by several workers (and
// daemons on one database).
type Outbox interface {
	// ClaimDue leases up to limit pending deliveries of enabled webhooks
	// whose next attempt is at or before now and whose lease, if any, has
	// run out: it sets their lease to owner until now+lease and returns
	// them, oldest next attempt first. Two owners never hold one row.
	ClaimDue(ctx context.Context, owner string, now time.Time, limit int, lease time.Duration) ([]Delivery, error)
	// MarkDelivered records a successful attempt and ends the delivery.
	MarkDelivered(ctx context.Context, owner, id string, a Attempt) error
	// MarkRetry records a failed attempt, schedules the next at nextAt
	// and releases the lease.
	MarkRetry(ctx context.Context, owner, id string, nextAt time.Time, a Attempt) error
	// MarkFailed records the last attempt and ends the delivery as failed
	// with reason, for the delivery log.
	MarkFailed(ctx context.Context, owner, id string, a Attempt, reason string) error
	// DisableWebhook stops deliveries to a webhook whose receiver said it
	// is gone, recording reason; its pending rows stay for when it is
	// enabled again.
	DisableWebhook(ctx context.Context, webhookID int64, reason string) error
}
