package webhooks

import (
	"context"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

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
	ClaimDue(ctx context.Context, owner string, now time.Time, limit int, lease time.Duration) ([]model.PendingDelivery, error)
	// MarkDelivered records a successful attempt and ends the delivery.
	MarkDelivered(ctx context.Context, owner, id string, a model.DeliveryAttempt) error
	// MarkRetry records a failed attempt, schedules the next at nextAt
	// and releases the lease.
	MarkRetry(ctx context.Context, owner, id string, nextAt time.Time, a model.DeliveryAttempt) error
	// MarkFailed records the last attempt and ends the delivery as failed
	// with reason, for the delivery log.
	MarkFailed(ctx context.Context, owner, id string, a model.DeliveryAttempt, reason string) error
	// DisableWebhook stops deliveries to a webhook whose receiver said it
	// is gone, recording reason; its pending rows stay for when it is
	// enabled again.
	DisableWebhook(ctx context.Context, webhookID int64, reason string) error
}
