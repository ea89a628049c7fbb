// Package servicetest builds the service the way the daemon does, for
// tests of its front ends: over a real store, with a validator and a
// poller that fetch from loopback test servers.
package servicetest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/sources/web"
	"github.com/feedpoller/feedpoller/store"
)

// Client is a fetch client that reaches loopback (test servers), tries
// once and waits for nothing between requests.
func Client() *fetch.Client {
	return fetch.New(fetch.Options{AllowPrivateNetworks: true, Attempts: 1, PerDomainGap: -1, RetryBaseDelay: -1,
		Timeout: 10 * time.Second, Logger: slog.New(slog.DiscardHandler)})
}

// Validator checks feeds and pages as the daemon's does, over Client.
type Validator struct {
	Feeds *rss.Fetcher
	Pages *web.Fetcher
}

// NewValidator is a Validator over a fresh Client.
func NewValidator() Validator {
	c := Client()
	return Validator{Feeds: &rss.Fetcher{Client: c}, Pages: &web.Fetcher{Client: c}}
}

// ValidateFeed fetches and parses a feed.
func (v Validator) ValidateFeed(ctx context.Context, url string) (service.FeedCheck, error) {
	got, err := v.Feeds.Validate(ctx, url)
	return service.FeedCheck{Title: got.Title, ItemCount: got.ItemCount, SiteURL: got.SiteURL}, err
}

// ValidatePage fetches a web page.
func (v Validator) ValidatePage(ctx context.Context, url string) (string, []string, error) {
	got, err := v.Pages.Validate(ctx, url)
	if err != nil {
		return "", nil, err
	}
	return got.Title, got.FeedLinks, nil
}

// Poller is a real poller of feeds and pages over st, fetching through
// Client, logging to log (nil: nowhere).
func Poller(t testing.TB, st *store.Store, log *slog.Logger) *poller.Poller {
	t.Helper()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := Client()
	po := poller.DefaultOptions()
	po.Store, po.Owner, po.Jitter, po.Log = st, "test-poller", -1, log
	po.Fetchers = map[string]poller.Fetcher{model.SourceRSS: &rss.Fetcher{Client: c}, model.SourceWeb: &web.Fetcher{Client: c}}
	p, err := poller.New(po)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Service is the service over st as the daemon builds it: validator,
// poller, digests, webhooks (their URLs may be on loopback) and tokens.
func Service(t testing.TB, st *store.Store, p service.Poller) *service.Service {
	t.Helper()
	policy, err := fetch.NewPolicy(fetch.Options{Allow: []string{"127.0.0.1"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	so := service.DefaultOptions()
	so.Store, so.Validator, so.Poller, so.Digests = st, NewValidator(), p, st
	so.Webhooks, so.AddressPolicy, so.APITokens, so.ImportHostGap = st, policy, st, -1
	svc, err := service.New(so)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}
