package model

import "time"

// Webhook is where a workspace's events are POSTed. The secret signs
// every delivery; it is never shown after creation (json:"-").
type Webhook struct {
	ID             int64  `db:"id" json:"id"`
	WorkspaceID    int64  `db:"workspace_id" json:"workspace_id"`
	URL            string `db:"url" json:"url"`
	Secret         string `db:"secret" json:"-"`
	EventList      string `db:"events" json:"-"`
	IsActive       bool   `db:"is_active" json:"is_active"`
	DisabledReason string `db:"disabled_reason" json:"disabled_reason"`
	// Events are the event names the webhook is subscribed to.
	Events    []string  `db:"-" json:"events"`
	CreatedAt time.Time `db:"created_at" json:"created_at"`
	UpdatedAt time.Time `db:"updated_at" json:"updated_at"`
}

// Delivery states of webhook_deliveries.status.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one row of a webhook's delivery log.
type WebhookDelivery struct {
	ID             string     `db:"id" json:"id"`
	WebhookID      int64      `db:"webhook_id" json:"webhook_id"`
	Event          string     `db:"event" json:"event"`
	ContentItemID  *int64     `db:"content_item_id" json:"content_item_id"`
	Status         string     `db:"status" json:"status"`
	Attempts       int        `db:"attempts" json:"attempts"`
	NextAttemptAt  time.Time  `db:"next_attempt_at" json:"next_attempt_at"`
	LastAttemptAt  *time.Time `db:"last_attempt_at" json:"last_attempt_at"`
	LastStatusCode *int       `db:"last_status_code" json:"last_status_code"`
	LastError      string     `db:"last_error" json:"last_error"`
	FailureReason  string     `db:"failure_reason" json:"failure_reason"`
	DeliveredAt    *time.Time `db:"delivered_at" json:"delivered_at"`
	FailedAt       *time.Time `db:"failed_at" json:"failed_at"`
	CreatedAt      time.Time  `db:"created_at" json:"created_at"`
}

// EventContentItemPromoted is the event a webhook receives when a content
// item is promoted.
const EventContentItemPromoted = "content_item.promoted"

// Promoted is a content item a save created, as a webhook delivery
// announces it, with the source it came from.
type Promoted struct {
	WorkspaceID   int64
	ContentItemID int64
	Title         string
	URL           string
	Summary       string
	Relevance     float64
	PublishedAt   *time.Time
	PromotedAt    time.Time
	SourceID      int64
	SourceTitle   string
	SourceURL     string
}

// DeliveryPayload builds a delivery of event about what: its id and the
// body every attempt sends. The webhooks package owns the format; the
// store stores what it returns in the save's transaction.
type DeliveryPayload func(event string, what Promoted) (id string, body []byte, err error)

// PendingDelivery is one event for one webhook: an outbox row, with the
// target and secret of its webhook as they are at claim time.
type PendingDelivery struct {
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

// AttemptClass is what a delivery attempt's result means for the
// delivery (the webhooks package classifies answers).
type AttemptClass string

const (
	// AttemptDelivered: a 2xx answer.
	AttemptDelivered AttemptClass = "delivered"
	// AttemptRetry: a network failure, a timeout, 408, 425, 429 or 5xx:
	// worth another attempt after a backoff (or the Retry-After).
	AttemptRetry AttemptClass = "retry"
	// AttemptRejected: any other 4xx, or a redirect (not followed): the
	// receiver refuses it; retried a few times in case it is being fixed,
	// then given up.
	AttemptRejected AttemptClass = "rejected"
	// AttemptGone: 410, the receiver says the hook is gone for good: the
	// delivery fails and the webhook is disabled.
	AttemptGone AttemptClass = "gone"
	// AttemptRefused: the target is not allowed (address policy, malformed
	// URL); no connection was made. Fails at once.
	AttemptRefused AttemptClass = "refused"
)

// DeliveryAttempt is the record of one POST of a webhook delivery.
type DeliveryAttempt struct {
	// Number counts the attempts of the delivery, this one included.
	Number int
	At     time.Time
	// Duration is the attempt's time, connect to the end of the answer.
	Duration   time.Duration
	Class      AttemptClass
	StatusCode int
	// RetryAfter is the receiver's Retry-After from At, 0 when it sent
	// none.
	RetryAfter time.Duration
	// Error says what went wrong, for the delivery log ("" when
	// delivered): the status and the start of the answer, or the network
	// failure.
	Error string
}

// DeliveryFilter selects a page of a webhook's delivery log.
type DeliveryFilter struct {
	// Status is pending, delivered or failed; empty: all.
	Status string
	// Before is the id of the last delivery of the previous page: the
	// page holds older ones. Delivery ids sort by creation time.
	Before string
	Limit  int
}
