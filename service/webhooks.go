package service

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/webhooks"
)

// WebhookStore is the storage of webhooks and their delivery log.
// *store.Store satisfies it.
type WebhookStore interface {
	// CreateWebhook refuses, with model.ErrLimit, a workspace that has
	// limit webhooks already, in one transaction with the insert.
	CreateWebhook(ctx context.Context, workspaceID int64, url, secret string, events []string, limit int) (*model.Webhook, error)
	ListWebhooks(ctx context.Context, workspaceID int64) ([]model.Webhook, error)
	SetWebhookActive(ctx context.Context, workspaceID, id int64, active bool, reason string) (*model.Webhook, error)
	DeleteWebhook(ctx context.Context, workspaceID, id int64) error
	ListDeliveries(ctx context.Context, workspaceID, webhookID int64, f model.DeliveryFilter) ([]model.WebhookDelivery, error)
}

// AddressPolicy decides whether a URL's host may be reached on our
// behalf. *fetch.Policy satisfies it.
type AddressPolicy interface {
	CheckURL(ctx context.Context, rawURL string) error
}

// Limits of webhooks.
const (
	// MaxWebhooksPerWorkspace bounds the deliveries one promotion fans
	// out to.
	MaxWebhooksPerWorkspace = 20
	MinSecretLength         = 16
)

// WebhookSpec is a new webhook as a caller asks for it.
type WebhookSpec struct {
	URL string `json:"url"`
	// Secret signs every delivery; nil: one is generated and answered once.
	Secret *string `json:"secret" validate:"omitnil,min=16,max=200"`
	// Events default to every event there is (content_item.promoted).
	Events []string `json:"events" validate:"max=10"`
}

// CreatedWebhook is a stored webhook, with the secret when it was
// generated (the only time it is ever shown).
type CreatedWebhook struct {
	Webhook model.Webhook
	// Secret is the generated secret; "" when the caller gave one.
	Secret string
}

// webhooksStore is the webhook storage, or ErrUnavailable.
func (s *Service) webhooksStore() (WebhookStore, error) {
	if s.opts.Webhooks == nil {
		return nil, &Error{Kind: ErrUnavailable, Message: "webhooks are not available: this process runs without webhook storage"}
	}
	return s.opts.Webhooks, nil
}

// CreateWebhook checks spec and stores an enabled webhook. Its URL must
// be an absolute http(s) URL without credentials whose host the address
// policy lets through (the error names the host and the way to allow
// it); every send is checked again when it dials.
func (s *Service) CreateWebhook(ctx context.Context, workspaceID int64, spec WebhookSpec) (*CreatedWebhook, error) {
	st, err := s.webhooksStore()
	if err != nil {
		return nil, err
	}
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return nil, err
	}
	spec.URL = strings.TrimSpace(spec.URL)
	extra := map[string]string{}
	switch {
	case spec.URL == "":
		extra["url"] = "is required"
	case len(spec.URL) > MaxURLLength:
		extra["url"] = fmt.Sprintf("must be at most %d characters", MaxURLLength)
	default:
		if err := webhooks.ValidateURL(spec.URL); err != nil {
			extra["url"] = webhookURLProblem(spec.URL, err)
		}
	}
	if len(spec.Events) == 0 {
		spec.Events = append([]string(nil), webhooks.Events...)
	}
	var events []string
	for i, e := range spec.Events {
		e = strings.TrimSpace(e)
		if !webhooks.KnownEvent(e) {
			extra[fmt.Sprintf("events[%d]", i)] = "is not an event webhooks send: want one of " + strings.Join(webhooks.Events, ", ")
			continue
		}
		if !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	if err := s.rules.Check(&spec, extra); err != nil {
		return nil, err
	}
	if err := s.opts.AddressPolicy.CheckURL(ctx, spec.URL); err != nil {
		var fe *sources.FetchError
		if errors.As(err, &fe) && fe.Kind == sources.KindTransient {
			return nil, &Error{Kind: ErrUnavailable, Message: "the webhook URL's host could not be checked now: " + err.Error()}
		}
		return nil, Invalid("invalid webhook", map[string]string{"url": "is not allowed: " + err.Error()})
	}
	out := &CreatedWebhook{}
	secret := ""
	if spec.Secret != nil {
		secret = *spec.Secret
	} else {
		secret = webhooks.NewSecret()
		out.Secret = secret
	}
	w, err := st.CreateWebhook(ctx, workspaceID, spec.URL, secret, events, MaxWebhooksPerWorkspace)
	if errors.Is(err, model.ErrLimit) {
		return nil, &Error{Kind: ErrConflict, Message: fmt.Sprintf("the workspace has %d webhooks, the most it may have: delete one first",
			MaxWebhooksPerWorkspace)}
	}
	if err != nil {
		return nil, err
	}
	out.Webhook = *w
	return out, nil
}

// webhookURLProblem words ValidateURL's refusal as a field error, without
// repeating the URL (and credentials in it).
func webhookURLProblem(raw string, err error) string {
	u, perr := url.Parse(raw)
	switch {
	case perr != nil:
		return "is not a valid URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "must be an http(s) URL"
	case u.User != nil:
		return "must not contain credentials: the secret authenticates deliveries"
	case u.Hostname() == "":
		return "must name a host"
	}
	return err.Error()
}

// ListWebhooks returns the workspace's webhooks, oldest first (their
// secrets are never part of the answer).
func (s *Service) ListWebhooks(ctx context.Context, workspaceID int64) ([]model.Webhook, error) {
	st, err := s.webhooksStore()
	if err != nil {
		return nil, err
	}
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return nil, err
	}
	return st.ListWebhooks(ctx, workspaceID)
}

// SetWebhookActive enables a webhook (after its receiver answered 410 Gone,
// or after it was turned off) or turns it off. Deliveries still pending
// are sent once it is enabled; events while it is off are not queued.
func (s *Service) SetWebhookActive(ctx context.Context, workspaceID, id int64, active bool) (*model.Webhook, error) {
	st, err := s.webhooksStore()
	if err != nil {
		return nil, err
	}
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return nil, err
	}
	w, err := st.SetWebhookActive(ctx, workspaceID, id, active, "turned off")
	if errors.Is(err, model.ErrNotFound) {
		return nil, notFound("webhook")
	}
	return w, err
}

// DeleteWebhook removes a webhook with its delivery log.
func (s *Service) DeleteWebhook(ctx context.Context, workspaceID, id int64) error {
	st, err := s.webhooksStore()
	if err != nil {
		return err
	}
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return err
	}
	err = st.DeleteWebhook(ctx, workspaceID, id)
	if errors.Is(err, model.ErrNotFound) {
		return notFound("webhook")
	}
	return err
}

// MaxDeliveryPage is the largest page of a delivery log.
const MaxDeliveryPage = 200

// ListDeliveries returns a page of a webhook's delivery log, newest first.
func (s *Service) ListDeliveries(ctx context.Context, workspaceID, webhookID int64, f model.DeliveryFilter) ([]model.WebhookDelivery, error) {
	st, err := s.webhooksStore()
	if err != nil {
		return nil, err
	}
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return nil, err
	}
	switch f.Status {
	case "", model.DeliveryPending, model.DeliveryDelivered, model.DeliveryFailed:
	default:
		return nil, Invalid("invalid request", map[string]string{"status": "must be one of: pending, delivered, failed"})
	}
	if f.Limit < 0 || f.Limit > MaxDeliveryPage {
		return nil, Invalid("invalid request", map[string]string{"limit": fmt.Sprintf("must be 1 to %d", MaxDeliveryPage)})
	}
	out, err := st.ListDeliveries(ctx, workspaceID, webhookID, f)
	if errors.Is(err, model.ErrNotFound) {
		return nil, notFound("webhook")
	}
	return out, err
}
