package websub

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedpoller/feedpoller/internal/logbuf"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/websub/websubtest"
)

// callbackEnv is a subscriber over a real database, its callbacks served
// on loopback, with one rss source and a verified subscription of it
// (callback token "tok", secret "sec").
type callbackEnv struct {
	t    *testing.T
	st   *store.Store
	s    *Subscriber
	srv  *httptest.Server
	ws   *model.Workspace
	src  *model.FeedSource
	logs *logbuf.Buffer
}

const (
	testToken  = "tok0123456789abcdef"
	testSecret = "sec"
)

func newCallbackEnv(t *testing.T, dialect string, change ...func(*Options)) *callbackEnv {
	t.Helper()
	ctx := context.Background()
	e := &callbackEnv{t: t, st: testdb.Store(t, dialect), logs: &logbuf.Buffer{}}
	var err error
	if e.ws, err = e.st.CreateWorkspace(ctx, "w", model.RelevanceProfile{}); err != nil {
		t.Fatal(err)
	}
	e.src = &model.FeedSource{WorkspaceID: e.ws.ID, URL: "https://example.com/feed.xml", SourceType: model.SourceRSS,
		IsActive: true, PollingIntervalMinutes: 30}
	if err := e.st.CreateSource(ctx, e.src); err != nil {
		t.Fatal(err)
	}
	sub := &model.Subscription{SourceID: e.src.ID, HubURL: "https://hub.example.com/", TopicURL: e.src.URL,
		CallbackToken: testToken, Secret: testSecret, State: model.SubVerified, NextRequestAt: time.Now().Add(time.Hour)}
	if err := e.st.CreateSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	popts := poller.DefaultOptions()
	popts.Store, popts.Log = e.st, log
	p, err := poller.New(popts)
	if err != nil {
		t.Fatal(err)
	}
	// The callbacks' server first: its URL is the public URL.
	handler := http.Handler(http.NotFoundHandler())
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(e.srv.Close)
	opts := DefaultOptions()
	opts.Store, opts.Pusher, opts.Client, opts.PublicURL, opts.Log = e.st, p, http.DefaultClient, e.srv.URL, log
	opts.Lease = time.Hour
	for _, c := range change {
		c(&opts)
	}
	if e.s, err = New(opts); err != nil {
		t.Fatal(err)
	}
	handler = e.s
	return e
}

// sub is the source's subscription as stored.
func (e *callbackEnv) sub() *model.Subscription {
	e.t.Helper()
	sub, err := e.st.SubscriptionOfSource(context.Background(), e.src.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return sub
}

// await makes the subscription wait for the hub's verification of a
// request of mode, as a sent request does.
func (e *callbackEnv) await(mode string) {
	e.t.Helper()
	sub := e.sub()
	ok, err := e.st.ClaimSubscriptionRequest(context.Background(), *sub, model.SubscriptionRequest{Mode: mode,
		HubURL: sub.HubURL, TopicURL: sub.TopicURL, CallbackToken: sub.CallbackToken, Secret: sub.Secret,
		NextRequestAt: time.Now().Add(time.Hour)})
	if err != nil || !ok {
		e.t.Fatalf("claim a %s request: %v %v", mode, ok, err)
	}
}

// get sends a hub's GET to the callback with query q.
func (e *callbackEnv) get(q url.Values) (int, string) {
	e.t.Helper()
	resp, err := http.Get(e.srv.URL + CallbackPath + testToken + "?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// deliver posts body to the callback signed with the subscription's
// secret.
func (e *callbackEnv) deliver(body []byte) int {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+CallbackPath+testToken, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/rss+xml")
	req.Header.Set("X-Hub-Signature", websubtest.Sign("sha256", testSecret, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func (e *callbackEnv) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.st.DB().Get(&n, e.st.DB().Rebind(query), args...); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func pushedFeed(ids ...string) []byte {
	var items strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&items, `<item><title>Item %s</title><link>https://example.com/posts/%s</link><guid>%s</guid>
<description>Item %s, pushed.</description></item>`, id, id, id, id)
	}
	return []byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://example.com/</link>` +
		items.String() + `</channel></rss>`)
}

// hub.lease_seconds is bounded before any arithmetic: counts of seconds
// that overflowed a duration (9 223 372 037 and up), wrapped to a
// negative lease (10 000 000 000) or to 0.29 s (18 446 744 074), or do
// not fit 64 bits are stored as the documented maximum of a year; values
// that are not a positive whole number are taken as the lease asked.
// Stored on both databases.
func TestLeaseSecondsBounded(t *testing.T) {
	const year = 365 * 24 * 3600
	cases := map[string]int{
		"864000": 864000, "31536000": year, "31536001": year, "9223372036": year, "9223372037": year,
		"10000000000": year, "18446744074": year, "18446744073709551615": year, "99999999999999999999999": year,
		" 600 ": 600, "0": 3600, "-5": 3600, "abc": 3600, "1e9": 3600, "": 3600,
	}
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			e := newCallbackEnv(t, dialect)
			for lease, want := range cases {
				e.await("subscribe")
				before := time.Now()
				code, body := e.get(url.Values{"hub.mode": {"subscribe"}, "hub.topic": {e.src.URL}, "hub.challenge": {"c"},
					"hub.lease_seconds": {lease}})
				after := time.Now()
				if code != http.StatusOK || body != "c" {
					t.Fatalf("lease %q: verification answered %d %q", lease, code, body)
				}
				sub := e.sub()
				if sub.LeaseSeconds != want || sub.State != model.SubVerified {
					t.Errorf("lease %q: stored %d seconds (%s), want %d", lease, sub.LeaseSeconds, sub.State, want)
				}
				lo, hi := before.Add(time.Duration(want)*time.Second), after.Add(time.Duration(want)*time.Second)
				if sub.LeaseExpiresAt == nil || sub.LeaseExpiresAt.Before(lo.Add(-time.Millisecond)) || sub.LeaseExpiresAt.After(hi) {
					t.Errorf("lease %q: lease ends %v, want %v..%v", lease, sub.LeaseExpiresAt, lo, hi)
				}
				src, err := e.st.GetSource(context.Background(), 0, e.src.ID)
				if err != nil {
					t.Fatal(err)
				}
				if src.WebSubSubscribedUntil == nil || !src.WebSubSubscribedUntil.Equal(*sub.LeaseExpiresAt) {
					t.Errorf("lease %q: source pushed until %v, subscription until %v", lease, src.WebSubSubscribedUntil, sub.LeaseExpiresAt)
				}
			}
		})
	}
}

// A hub that refuses the lease asked (400 from a hub whose maximum is a
// day) is asked again at once without hub.lease_seconds, which is
// optional, and the subscription is verified with the lease it grants;
// nothing is asked again after. The hub's refusal, which quotes the
// callback, is logged without its token. On both databases.
func TestHubRefusingTheLeaseIsAskedWithout(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			hub := websubtest.New(t, websubtest.Behaviour{MaxLeaseSeconds: 86400})
			e := newCallbackEnv(t, dialect, func(o *Options) { o.Lease = 10 * 24 * time.Hour })
			src := &model.FeedSource{WorkspaceID: e.ws.ID, URL: "https://example.org/feed.xml", SourceType: model.SourceRSS,
				IsActive: true, PollingIntervalMinutes: 30}
			if err := e.st.CreateSource(ctx, src); err != nil {
				t.Fatal(err)
			}
			e.st.DB().MustExec(e.st.DB().Rebind(`UPDATE feed_sources SET hub_url = ? WHERE id = ?`), hub.URL, src.ID)
			if err := e.s.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			reqs := hub.Requests()
			if len(reqs) != 2 || reqs[0].LeaseAsked != 864000 || reqs[0].Status != http.StatusBadRequest ||
				reqs[1].LeaseAsked != 0 || reqs[1].Status != http.StatusAccepted || reqs[1].Callback != reqs[0].Callback {
				t.Fatalf("hub requests: %+v; want the 10-day lease refused, then a request without one accepted", reqs)
			}
			waitUntil(t, "the subscription verified", func() bool {
				sub, err := e.st.SubscriptionOfSource(ctx, src.ID)
				return err == nil && sub.State == model.SubVerified
			})
			sub, err := e.st.SubscriptionOfSource(ctx, src.ID)
			if err != nil {
				t.Fatal(err)
			}
			if sub.LeaseSeconds != 86400 || sub.Failures != 0 || sub.LastError != "" {
				t.Errorf("subscription: lease %d failures %d error %q; want the hub's day, no failure", sub.LeaseSeconds, sub.Failures, sub.LastError)
			}
			if err := e.s.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if n := len(hub.Requests()); n != 2 {
				t.Errorf("hub got %d requests after the next sync, want still 2", n)
			}
			if logs := e.logs.String(); strings.Contains(logs, sub.CallbackToken) || !strings.Contains(logs, "[redacted]") {
				t.Errorf("the hub's refusal logged with the callback token, or not logged:\n%s", logs)
			}
		})
	}
}

// waitUntil polls cond until it holds; the limit is a hang guard, not a
// measure.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s", what)
}

// A denial carries no challenge, so it is taken only while a subscription
// request awaits the hub's verification, like any other mode: holding a
// verified subscription's callback is not enough to end it. On both
// databases.
func TestDenialNeedsTheHubsVerification(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			e := newCallbackEnv(t, dialect)
			e.await("subscribe")
			if code, _ := e.get(url.Values{"hub.mode": {"subscribe"}, "hub.topic": {e.src.URL}, "hub.challenge": {"c"},
				"hub.lease_seconds": {"864000"}}); code != http.StatusOK {
				t.Fatalf("verification: %d", code)
			}
			deny := url.Values{"hub.mode": {"denied"}, "hub.topic": {e.src.URL}, "hub.reason": {"forged"}}
			if code, _ := e.get(deny); code != http.StatusNotFound {
				t.Errorf("denial of a verified subscription awaiting nothing: %d, want 404", code)
			}
			if sub := e.sub(); sub.State != model.SubVerified {
				t.Fatalf("a denial nobody awaited ended the subscription: %+v", sub)
			}
			src, err := e.st.GetSource(context.Background(), 0, e.src.ID)
			if err != nil || src.WebSubSubscribedUntil == nil {
				t.Fatalf("the source no longer counts as pushed: %v %v", src, err)
			}
			e.await("unsubscribe")
			if code, _ := e.get(deny); code != http.StatusNotFound {
				t.Errorf("denial while an unsubscription awaits: %d, want 404", code)
			}
			// The hub's answer to a subscription request (a renewal here).
			e.await("subscribe")
			if code, _ := e.get(deny); code != http.StatusOK {
				t.Errorf("denial of the awaited subscription: %d, want 200", code)
			}
			if sub := e.sub(); sub.State != model.SubDenied || !strings.Contains(sub.LastError, "forged") {
				t.Errorf("after the awaited denial: %+v", sub)
			}
		})
	}
}

// Deliveries for a subscription that ended (unsubscribed, expired,
// denied) or whose source was paused or deleted answer 410 Gone, which
// §7 allows and which makes hubs drop them; an unknown callback, or one
// never verified, stays 404. Nothing is stored. On both databases.
func TestDeliveriesAfterTheEndAnswerGone(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		set  func(e *callbackEnv)
		want int
	}{
		{"unsubscribed", func(e *callbackEnv) { e.end(model.SubUnsubscribed) }, http.StatusGone},
		{"expired", func(e *callbackEnv) { e.end(model.SubExpired) }, http.StatusGone},
		{"denied", func(e *callbackEnv) { e.end(model.SubDenied) }, http.StatusGone},
		{"source paused", func(e *callbackEnv) {
			if _, err := e.st.UpdateSource(ctx, e.ws.ID, e.src.ID, model.SourcePatch{IsActive: new(false)}); err != nil {
				e.t.Fatal(err)
			}
		}, http.StatusGone},
		{"source deleted", func(e *callbackEnv) {
			if err := e.st.DeleteSource(ctx, e.ws.ID, e.src.ID); err != nil {
				e.t.Fatal(err)
			}
		}, http.StatusGone},
		{"never verified", func(e *callbackEnv) {
			e.st.DB().MustExec(e.st.DB().Rebind(`UPDATE websub_subscriptions SET state = ? WHERE feed_source_id = ?`),
				model.SubPending, e.src.ID)
		}, http.StatusNotFound},
		{"verified, active", func(*callbackEnv) {}, http.StatusNoContent},
	}
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					e := newCallbackEnv(t, dialect)
					c.set(e)
					if code := e.deliver(pushedFeed("g1")); code != c.want {
						t.Errorf("delivery: %d, want %d", code, c.want)
					}
					stored := 0
					if c.want == http.StatusNoContent {
						stored = 1
					}
					if n := e.count(`SELECT COUNT(*) FROM feed_articles`); n != stored {
						t.Errorf("%d articles stored, want %d", n, stored)
					}
					gone := testutil.ToFloat64(e.s.m.Deliveries.WithLabelValues("gone"))
					if (c.want == http.StatusGone) != (gone == 1) {
						t.Errorf("deliveries counted gone: %v", gone)
					}
				})
			}
			e := newCallbackEnv(t, dialect)
			req, _ := http.NewRequest(http.MethodPost, e.srv.URL+CallbackPath+"unknown", bytes.NewReader(pushedFeed("g1")))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("delivery to an unknown callback: %d, want 404", resp.StatusCode)
			}
		})
	}
}

// end puts the subscription in an ended state.
func (e *callbackEnv) end(state string) {
	e.t.Helper()
	if err := e.st.EndSubscription(context.Background(), *e.sub(), state, "", time.Time{}); err != nil {
		e.t.Fatal(err)
	}
}

// A hub that delivers the same signed body again (its retry of a delivery
// whose answer it missed, or anyone replaying one) is acknowledged, and
// nothing is written again: one article, one pushed poll_runs row. A
// later delivery with a new item is stored as usual. On both databases.
func TestReplayedDeliveryStoredOnce(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			e := newCallbackEnv(t, dialect)
			body := pushedFeed("g1", "g2")
			for i := range 3 {
				if code := e.deliver(body); code != http.StatusNoContent {
					t.Fatalf("delivery %d: %d, want 204", i+1, code)
				}
			}
			runs := `SELECT COUNT(*) FROM poll_runs WHERE feed_source_id = ? AND outcome = 'pushed'`
			if n := e.count(runs, e.src.ID); n != 1 {
				t.Errorf("%d pushed poll_runs rows after one delivery and two replays, want 1", n)
			}
			if n := e.count(`SELECT COUNT(*) FROM feed_articles`); n != 2 {
				t.Errorf("%d articles, want 2", n)
			}
			if code := e.deliver(pushedFeed("g3", "g1", "g2")); code != http.StatusNoContent {
				t.Fatalf("delivery of a new item: %d", code)
			}
			if n := e.count(runs+` AND items_new = 1`, e.src.ID); n != 1 {
				t.Errorf("%d pushed rows with the one new item, want 1", n)
			}
			if d := testutil.ToFloat64(e.s.m.Deliveries.WithLabelValues("duplicate")); d != 2 {
				t.Errorf("deliveries counted duplicate: %v, want 2", d)
			}
			if s := testutil.ToFloat64(e.s.m.Deliveries.WithLabelValues("stored")); s != 2 {
				t.Errorf("deliveries counted stored: %v, want 2", s)
			}
		})
	}
}
