package webhooks

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/google/uuid"
)

// Events a webhook can subscribe to.
const (
	// EventContentItemPromoted: an article passed relevance and dedup and
	// became a content item.
	EventContentItemPromoted = model.EventContentItemPromoted
)

// Events lists every event, for validating a webhook's subscription.
var Events = []string{EventContentItemPromoted}

// KnownEvent reports whether e is an event webhooks can subscribe to.
func KnownEvent(e string) bool {
	for _, k := range Events {
		if k == e {
			return true
		}
	}
	return false
}

// Payload is the JSON body of one delivery.
type Payload struct {
	// DeliveryID is the same on every attempt of one delivery: receivers
	// deduplicate by it.
	DeliveryID string `json:"delivery_id"`
	Event      string `json:"event"`
	// Timestamp is when the event happened (the promotion), not when
	// this attempt was sent.
	Timestamp   time.Time    `json:"timestamp"`
	WorkspaceID int64        `json:"workspace_id"`
	ContentItem *ContentItem `json:"content_item,omitempty"`
}

// ContentItem is the promoted item as a delivery carries it.
type ContentItem struct {
	ID          int64      `json:"id"`
	Title       string     `json:"title"`
	URL         string     `json:"url"`
	Summary     string     `json:"summary,omitempty"`
	Relevance   float64    `json:"relevance"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	PromotedAt  time.Time  `json:"promoted_at"`
	Source      Source     `json:"source"`
}

// Source is the feed source an item came from.
type Source struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// NewDeliveryID returns a new delivery id: a UUIDv7, so ids sort by
// creation time and index well.
func NewDeliveryID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// PromotedBody is the body of a content_item.promoted delivery: the
// integrator builds it inside the promotion's transaction and stores it in
// the outbox row, so every attempt sends the very same bytes.
func PromotedBody(deliveryID string, workspaceID int64, item ContentItem) ([]byte, error) {
	b, err := json.Marshal(Payload{DeliveryID: deliveryID, Event: EventContentItemPromoted,
		Timestamp: item.PromotedAt.UTC(), WorkspaceID: workspaceID, ContentItem: &item})
	if err != nil {
		return nil, fmt.Errorf("encode %s delivery %s: %w", EventContentItemPromoted, deliveryID, err)
	}
	return b, nil
}

// DeliveryPayload builds a delivery of event about a promotion: a new
// delivery id and the body every attempt sends. The store is given it
// (store.Options.DeliveryPayload) and stores what it returns in the
// promotion's transaction (model.DeliveryPayload).
func DeliveryPayload(event string, p model.Promoted) (string, []byte, error) {
	if event != EventContentItemPromoted {
		return "", nil, fmt.Errorf("build a webhook delivery: unknown event %q", event)
	}
	id := NewDeliveryID()
	body, err := PromotedBody(id, p.WorkspaceID, ContentItem{ID: p.ContentItemID, Title: p.Title, URL: p.URL,
		Summary: p.Summary, Relevance: p.Relevance, PublishedAt: p.PublishedAt, PromotedAt: p.PromotedAt,
		Source: Source{ID: p.SourceID, Title: p.SourceTitle, URL: p.SourceURL}})
	if err != nil {
		return "", nil, err
	}
	return id, body, nil
}

var _ model.DeliveryPayload = DeliveryPayload

// NewSecret returns a random signing secret for a webhook created without
// one, in the Standard Webhooks form: "whsec_" and 32 random bytes in
// standard base64, which receivers' libraries take as it is.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}
