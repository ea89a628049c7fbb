package testdb

import (
	"context"
	"testing"

	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/webhooks"
)

// Store opens a fresh, migrated database of the dialect, closed when the
// test ends, with what the daemon gives its store (the webhook payloads).
func Store(t testing.TB, dialect string) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.OpenWith(ctx, URL(t, dialect), store.Options{DeliveryPayload: webhooks.DeliveryPayload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("testdb: close store: %v", err)
		}
	})
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}
