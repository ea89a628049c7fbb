package model

import "time"

// WebSub subscription states (websub_subscriptions.state).
const (
	SubPending      = "pending"
	SubVerified     = "verified"
	SubDenied       = "denied"
	SubExpired      = "expired"
	SubUnsubscribed = "unsubscribed"
)

// SubscriptionStates are every state a subscription may be in, for
// metrics that show all of them from the start.
func SubscriptionStates() []string {
	return []string{SubPending, SubVerified, SubDenied, SubExpired, SubUnsubscribed}
}

// Subscription is a WebSub subscription of one feed source at one hub.
type Subscription struct {
	ID             int64      `db:"id"`
	SourceID       int64      `db:"feed_source_id"`
	HubURL         string     `db:"hub_url"`
	TopicURL       string     `db:"topic_url"`
	CallbackToken  string     `db:"callback_token"`
	Secret         string     `db:"secret"`
	State          string     `db:"state"`
	PendingMode    string     `db:"pending_mode"`
	LeaseSeconds   int        `db:"lease_seconds"`
	LeaseExpiresAt *time.Time `db:"lease_expires_at"`
	NextRequestAt  time.Time  `db:"next_request_at"`
	Requests       int        `db:"requests"`
	Failures       int        `db:"failures"`
	Verifications  int        `db:"verifications"`
	Deliveries     int        `db:"deliveries"`
	Rejected       int        `db:"rejected"`
	LastError      string     `db:"last_error"`
	LastDeliveryAt *time.Time `db:"last_delivery_at"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
}

// SubscriptionTask is a subscription whose next request is due, with its
// source as it is now: Active false and SourceURL "" when the source was
// deleted.
type SubscriptionTask struct {
	Subscription
	Active    bool   `db:"source_active"`
	SourceURL string `db:"source_url"`
	SourceHub string `db:"source_hub"`
	SelfURL   string `db:"source_self"`
}

// WebSubStatus is what a source's representation shows of its
// subscription (never its secret or callback).
type WebSubStatus struct {
	State          string     `json:"state"`
	HubURL         string     `json:"hub_url"`
	TopicURL       string     `json:"topic_url"`
	LeaseExpiresAt *time.Time `json:"lease_expires_at"`
	Deliveries     int        `json:"deliveries"`
	Rejected       int        `json:"rejected"`
	LastError      string     `json:"last_error"`
}

// SubscriptionRequest is a request about to be sent to a hub.
type SubscriptionRequest struct {
	// Mode is subscribe or unsubscribe.
	Mode string
	// HubURL, TopicURL, CallbackToken, Secret replace the stored ones.
	HubURL, TopicURL, CallbackToken, Secret string
	// NextRequestAt is when to try again should no answer come.
	NextRequestAt time.Time
}
