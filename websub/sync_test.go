package websub

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/websub/websubtest"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// A deleted source's subscription at a hub that takes the unsubscription
// and never confirms it is asked once, then dropped: no request is sent
// for it forever.
func TestUnconfirmedUnsubscriptionDropped(t *testing.T) {
	testdb.EachWorkspace(t, "w", func(t *testing.T, st *store.Store, ws *model.Workspace) {
		ctx := context.Background()
		hub := websubtest.New(t, websubtest.Behaviour{NeverVerify: true})
		src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://example.com/feed.xml", SourceType: model.SourceRSS,
			IsActive: true, PollingIntervalMinutes: 30}
		if err := st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		past := time.Now().Add(-time.Minute)
		sub := &model.Subscription{SourceID: src.ID, HubURL: hub.URL, TopicURL: src.URL, CallbackToken: "tok",
			Secret: "sec", State: model.SubVerified, NextRequestAt: past}
		if err := st.CreateSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteSource(ctx, ws.ID, src.ID); err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Store: st, Pusher: nopPusher{}, PublicURL: "https://feeds.example.com", Client: http.DefaultClient,
			Lease: time.Hour, Interval: time.Minute, MaxBodyBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if reqs := hub.Requests(); len(reqs) != 1 || reqs[0].Mode != "unsubscribe" {
			t.Fatalf("hub requests after the deletion: %+v", reqs)
		}
		// No confirmation came; when the request is due again the
		// subscription is dropped instead of asked again.
		got, err := st.SubscriptionOfSource(ctx, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB().Exec(st.DB().Rebind(`UPDATE websub_subscriptions SET next_request_at = ? WHERE id = ?`),
			past.UTC(), got.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SubscriptionOfSource(ctx, src.ID); !errors.Is(err, model.ErrNotFound) {
			t.Fatalf("subscription of the deleted source still stored: %v", err)
		}
		if n := len(hub.Requests()); n != 1 {
			t.Fatalf("hub got %d requests, want 1", n)
		}
	})
}
