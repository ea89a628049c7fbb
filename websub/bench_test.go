package websub

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/websub/websubtest"
)

// BenchmarkDelivery measures a signed content distribution of one new
// item from arrival at the callback to its answer, which comes after the
// item is stored (parse, pipeline, save), on loopback.
func BenchmarkDelivery(b *testing.B) {
	testdb.EachWorkspace(b, "w", func(b *testing.B, st *store.Store, ws *model.Workspace) {
		ctx := context.Background()
		src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://example.com/feed.xml", SourceType: model.SourceRSS,
			IsActive: true, PollingIntervalMinutes: 30}
		if err := st.CreateSource(ctx, src); err != nil {
			b.Fatal(err)
		}
		sub := &model.Subscription{SourceID: src.ID, HubURL: "https://hub.example.com/", TopicURL: src.URL,
			CallbackToken: "tok", Secret: "sec", State: model.SubVerified, NextRequestAt: time.Now().Add(time.Hour)}
		if err := st.CreateSubscription(ctx, sub); err != nil {
			b.Fatal(err)
		}
		quiet := slog.New(slog.DiscardHandler)
		popts := poller.DefaultOptions()
		popts.Store, popts.Log = st, quiet
		p, err := poller.New(popts)
		if err != nil {
			b.Fatal(err)
		}
		opts := DefaultOptions()
		opts.Store, opts.Pusher, opts.Client, opts.PublicURL, opts.Log = st, p, http.DefaultClient, "https://feeds.example.com", quiet
		s, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(s)
		b.Cleanup(srv.Close)
		b.ResetTimer()
		for i := range b.N {
			body := []byte(fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://example.com/</link>
<item><title>Item %d</title><link>https://example.com/posts/%d</link><guid>g%d</guid><description>Item %d, pushed.</description></item>
</channel></rss>`, i, i, i, i))
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+CallbackPath+"tok", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/rss+xml")
			req.Header.Set("X-Hub-Signature", websubtest.Sign("sha256", "sec", body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				b.Fatalf("delivery %d: %d", i, resp.StatusCode)
			}
		}
	})
}
