package service_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/webhooks"
)

// memWebhooks keeps webhooks in memory.
type memWebhooks struct {
	mu    sync.Mutex
	hooks []model.Webhook
}

func (m *memWebhooks) CreateWebhook(_ context.Context, ws int64, u, secret string, events []string, limit int) (*model.Webhook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, w := range m.hooks {
		if w.WorkspaceID == ws {
			n++
		}
	}
	if limit > 0 && n >= limit {
		return nil, model.ErrLimit
	}
	w := model.Webhook{ID: int64(len(m.hooks) + 1), WorkspaceID: ws, URL: u, Secret: secret, Events: events, IsActive: true}
	m.hooks = append(m.hooks, w)
	return &w, nil
}

func (m *memWebhooks) ListWebhooks(_ context.Context, ws int64) ([]model.Webhook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []model.Webhook
	for _, w := range m.hooks {
		if w.WorkspaceID == ws {
			out = append(out, w)
		}
	}
	return out, nil
}

func (m *memWebhooks) SetWebhookActive(_ context.Context, ws, id int64, active bool, _ string) (*model.Webhook, error) {
	return nil, fmt.Errorf("webhook %d: %w", id, model.ErrNotFound)
}

func (m *memWebhooks) DeleteWebhook(_ context.Context, ws, id int64) error {
	return fmt.Errorf("webhook %d: %w", id, model.ErrNotFound)
}

func (m *memWebhooks) ListDeliveries(context.Context, int64, int64, model.DeliveryFilter) ([]model.WebhookDelivery, error) {
	return nil, nil
}

// hostPolicy refuses *.internal and cannot resolve *.flaky, as the
// fetcher's address policy words both.
type hostPolicy struct{}

func (hostPolicy) CheckURL(_ context.Context, raw string) error {
	u, _ := url.Parse(raw)
	switch {
	case strings.HasSuffix(u.Hostname(), ".internal"):
		return &sources.FetchError{Kind: sources.KindPermanent, Msg: "host " + u.Hostname() + " is not allowed (private); set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"}
	case strings.HasSuffix(u.Hostname(), ".flaky"):
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "DNS lookup failed for " + u.Hostname()}
	}
	return nil
}

func webhookFixture(t *testing.T) (*fixture, *memWebhooks) {
	hooks := &memWebhooks{}
	return newFixture(t, func(o *service.Options) { o.Webhooks, o.AddressPolicy = hooks, hostPolicy{} }), hooks
}

func TestCreateWebhookChecksItsInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		spec  service.WebhookSpec
		kind  error
		field string
		msg   string
	}{
		{"no url", service.WebhookSpec{}, service.ErrInvalid, "url", "is required"},
		{"not http", service.WebhookSpec{URL: "ftp://r.test/hook"}, service.ErrInvalid, "url", "http(s)"},
		{"credentials", service.WebhookSpec{URL: "https://u:p@r.test/hook"}, service.ErrInvalid, "url", "credentials"},
		{"unknown event", service.WebhookSpec{URL: "https://r.test/hook", Events: []string{"item.deleted"}}, service.ErrInvalid, "events[0]", "content_item.promoted"},
		{"short secret", service.WebhookSpec{URL: "https://r.test/hook", Secret: ptr("short")}, service.ErrInvalid, "secret", "at least 16"},
		{"internal host", service.WebhookSpec{URL: "https://wiki.internal/hook"}, service.ErrInvalid, "url", "host wiki.internal is not allowed"},
		{"unresolvable now", service.WebhookSpec{URL: "https://r.flaky/hook"}, service.ErrUnavailable, "", "could not be checked"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, hooks := webhookFixture(t)
			_, err := f.svc.CreateWebhook(context.Background(), f.wsID, c.spec)
			se := wantKind(t, err, c.kind, c.field)
			if !strings.Contains(se.Error()+fmt.Sprint(se.Fields), c.msg) {
				t.Errorf("error %q %v, want it to say %q", se.Error(), se.Fields, c.msg)
			}
			if len(hooks.hooks) != 0 {
				t.Errorf("a refused webhook was stored")
			}
		})
	}
}

// A webhook without a secret gets a generated one, answered once; one
// with a secret is stored with it and answered without it. Events default
// to every event there is.
func TestCreateWebhookSecretsAndEvents(t *testing.T) {
	f, hooks := webhookFixture(t)
	ctx := context.Background()
	gen, err := f.svc.CreateWebhook(ctx, f.wsID, service.WebhookSpec{URL: "https://r.test/a"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(gen.Secret, "whsec_") || hooks.hooks[0].Secret != gen.Secret ||
		fmt.Sprint(gen.Webhook.Events) != fmt.Sprint(webhooks.Events) {
		t.Fatalf("generated: %+v", gen)
	}
	own, err := f.svc.CreateWebhook(ctx, f.wsID, service.WebhookSpec{URL: "https://r.test/b", Secret: ptr("0123456789abcdef"),
		Events: []string{"content_item.promoted", " content_item.promoted"}})
	if err != nil {
		t.Fatal(err)
	}
	if own.Secret != "" || hooks.hooks[1].Secret != "0123456789abcdef" || len(own.Webhook.Events) != 1 {
		t.Fatalf("given: %+v", own)
	}
	if _, err := f.svc.CreateWebhook(ctx, 999, service.WebhookSpec{URL: "https://r.test/c"}); err == nil {
		t.Fatal("a webhook for a missing workspace was stored")
	}
}

func TestWebhooksPerWorkspaceAreBounded(t *testing.T) {
	f, _ := webhookFixture(t)
	ctx := context.Background()
	for i := range service.MaxWebhooksPerWorkspace {
		if _, err := f.svc.CreateWebhook(ctx, f.wsID, service.WebhookSpec{URL: fmt.Sprintf("https://r.test/%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.svc.CreateWebhook(ctx, f.wsID, service.WebhookSpec{URL: "https://r.test/one-more"})
	_ = wantKind(t, err, service.ErrConflict, "")
	if _, err := f.svc.CreateWebhook(ctx, f.other, service.WebhookSpec{URL: "https://r.test/other"}); err != nil {
		t.Fatalf("another workspace: %v", err)
	}
}

// Without webhook storage the calls say so; webhooks without a policy to
// check their URLs are refused at construction.
func TestWebhooksNeedStorageAndPolicy(t *testing.T) {
	f := newFixture(t)
	_, err := f.svc.CreateWebhook(context.Background(), f.wsID, service.WebhookSpec{URL: "https://r.test/hook"})
	_ = wantKind(t, err, service.ErrUnavailable, "")
	o := service.DefaultOptions()
	o.Store, o.Webhooks = &memStore{}, &memWebhooks{}
	if _, err := service.New(o); err == nil || !strings.Contains(err.Error(), "address policy") {
		t.Fatalf("New without a policy: %v", err)
	}
	var _ service.AddressPolicy = (*fetch.Policy)(nil)
}
