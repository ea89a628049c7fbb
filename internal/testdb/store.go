package testdb

import (
	"context"
	"testing"

	"github.com/feedpoller/feedpoller/model"
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

// Runner is *testing.T or *testing.B: a test that runs subtests of its own
// kind.
type Runner[T any] interface {
	testing.TB
	Run(name string, f func(T)) bool
}

// EachStore runs f once per dialect, as a subtest named after it, on a
// fresh store (see Store).
func EachStore[T Runner[T]](t T, f func(t T, st *store.Store)) {
	for _, d := range Dialects {
		t.Run(d, func(t T) { f(t, Store(t, d)) })
	}
}

// EachWorkspace runs f once per dialect, as EachStore does, with a
// workspace named name (no interests) already in the store: where most
// tests of the database paths start.
func EachWorkspace[T Runner[T]](t T, name string, f func(t T, st *store.Store, ws *model.Workspace)) {
	EachStore(t, func(t T, st *store.Store) {
		ws, err := st.CreateWorkspace(context.Background(), name, model.RelevanceProfile{})
		if err != nil {
			t.Fatalf("testdb: create workspace %q: %v", name, err)
		}
		f(t, st, ws)
	})
}
