package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/daemontest"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/websub/websubtest"
)

// hubSite serves /NAME.xml feeds advertising the hub given for NAME, with
// the items listed so far.
type hubSite struct {
	*httptest.Server
	mu    sync.Mutex
	items []string
}

func newHubSite(t *testing.T, hubs map[string]string) *hubSite {
	s := &hubSite{items: []string{"p1"}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".xml")
		hub, ok := hubs[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		items := append([]string(nil), s.items...)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, hubFeed("http://"+r.Host, name, hub, items...))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hubSite) publish(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append([]string{id}, s.items...)
}

// hubFeed is the RSS document of feed name at base, advertising hub, with
// the items ids.
func hubFeed(base, name, hub string, ids ...string) string {
	var items strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&items, `<item><title>Post %s</title><link>%s/posts/%s</link><guid>%s</guid>
<description>Post %s of the %s feed, with a few words of text.</description></item>`, id, base, id, id, id, name)
	}
	return fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
<title>%s</title><link>%s/</link><atom:link rel="hub" href="%s"/><atom:link rel="self" href="%s/%s.xml"/>%s</channel></rss>`,
		name, base, hub, base, name, items.String())
}

// subRow is a subscription as stored, with its source's scheduling.
type subRow struct {
	SourceID      int64      `db:"feed_source_id"`
	State         string     `db:"state"`
	Topic         string     `db:"topic_url"`
	Token         string     `db:"callback_token"`
	Requests      int        `db:"requests"`
	Failures      int        `db:"failures"`
	Verifications int        `db:"verifications"`
	Deliveries    int        `db:"deliveries"`
	Rejected      int        `db:"rejected"`
	LastError     string     `db:"last_error"`
	Expires       *time.Time `db:"lease_expires_at"`
}

func subOf(t *testing.T, st *store.Store, sourceID int64) (subRow, bool) {
	t.Helper()
	var rows []subRow
	// The callback token lives apart from the subscription, with the
	// secrets (in the schema feedpoller_secrets on PostgreSQL).
	secrets := "websub_secrets"
	if st.Dialect() == store.Postgres {
		secrets = "feedpoller_secrets.websub_secrets"
	}
	if err := st.DB().Select(&rows, st.DB().Rebind(`SELECT w.feed_source_id, w.state, w.topic_url, k.callback_token, w.requests,
		w.failures, w.verifications, w.deliveries, w.rejected, w.last_error, w.lease_expires_at
		FROM websub_subscriptions w JOIN `+secrets+` k ON k.subscription_id = w.id WHERE w.feed_source_id = ?`), sourceID); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return subRow{}, false
	}
	return rows[0], true
}

// waitFor polls cond until it holds; the limit is a hang guard, not a
// measure.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s", what)
}

func countRows(t *testing.T, st *store.Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := st.DB().Get(&n, st.DB().Rebind(query), args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWebSubThroughTheBinary is the round trip against local hubs that
// follow the WebSub Recommendation, through the real daemon on both
// databases: subscribe → verify → signed delivery stored through the
// pipeline (and one article when the next poll lists the same item) →
// renewal → unsubscribe on pause and on delete; a denying hub, a hub
// answering 500 and one that never verifies leave polling as it was;
// unsigned and wrongly signed deliveries, unknown callbacks and oversized
// bodies store nothing.
func TestWebSubThroughTheBinary(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			okHub := websubtest.New(t, websubtest.Behaviour{LeaseSeconds: 6})
			denyHub := websubtest.New(t, websubtest.Behaviour{Deny: true})
			failHub := websubtest.New(t, websubtest.Behaviour{Status: http.StatusInternalServerError})
			silentHub := websubtest.New(t, websubtest.Behaviour{NeverVerify: true})
			site := newHubSite(t, map[string]string{"ok": okHub.URL, "deny": denyHub.URL, "fail": failHub.URL, "silent": silentHub.URL})

			dir := t.TempDir()
			dbURL := testdb.URL(t, dialect)
			addr := daemontest.FreeAddr(t)
			public := "http://" + addr
			env := quietEnv(dbURL, "FEEDPOLLER_FETCH_ATTEMPTS=1")
			run := func(args ...string) string { t.Helper(); return mustCLI(t, dir, env, args...) }
			ws := strings.TrimSpace(run("workspaces", "add", "--name", "push", "--quiet"))
			for _, name := range []string{"ok", "deny", "fail", "silent"} {
				run("sources", "add", "--workspace", ws, "--url", site.URL+"/"+name+".xml")
			}
			st := openTestStore(t, env)
			ids := map[string]int64{}
			for _, r := range schedRows(t, st) {
				ids[strings.TrimSuffix(r.URL[strings.LastIndex(r.URL, "/")+1:], ".xml")] = r.ID
			}

			const token = "websub-admin-token"
			d := startDaemon(t, dir, baseEnv(dbURL, "FEEDPOLLER_ADMIN_TOKEN="+token, "FEEDPOLLER_POLLER_SCHEDULE=@every 1s",
				"FEEDPOLLER_FETCH_ATTEMPTS=1", "FEEDPOLLER_LISTEN="+addr, "FEEDPOLLER_PUBLIC_URL="+public,
				"FEEDPOLLER_WEBSUB_SYNC_INTERVAL=1s", "FEEDPOLLER_WEBSUB_MAX_BODY_BYTES=65536"))
			wsPath := "/api/intelligence/workspaces/" + ws

			// Subscribe → verify.
			waitFor(t, "the ok subscription verified", func() bool { r, _ := subOf(t, st, ids["ok"]); return r.State == model.SubVerified })
			// The hub records the verification once it has read the answer.
			waitFor(t, "the hub's verification done", func() bool { r := okHub.Requests(); return len(r) > 0 && r[0].Verified })
			first := okHub.Requests()[0]
			if first.Mode != "subscribe" || first.Topic != site.URL+"/ok.xml" || !strings.HasPrefix(first.Callback, public+"/websub/") ||
				len(first.Secret) != 64 || first.LeaseAsked != 864000 || !first.Verified {
				t.Fatalf("subscription request: %+v", first)
			}
			okSub, _ := subOf(t, st, ids["ok"])
			callback := first.Callback

			// Denied, refused (500), never verified: recorded, polling as before.
			waitFor(t, "the denial recorded", func() bool { r, _ := subOf(t, st, ids["deny"]); return r.State == model.SubDenied })
			waitFor(t, "the 500 recorded", func() bool { r, _ := subOf(t, st, ids["fail"]); return r.Failures > 0 })
			waitFor(t, "the silent hub asked", func() bool { return len(silentHub.Requests()) > 0 })
			if r, _ := subOf(t, st, ids["deny"]); !strings.Contains(r.LastError, "denied") {
				t.Errorf("denied subscription: %+v", r)
			}
			if r, _ := subOf(t, st, ids["fail"]); r.State != model.SubPending || !strings.Contains(r.LastError, "HTTP 500") {
				t.Errorf("subscription at a hub answering 500: %+v", r)
			}
			for _, name := range []string{"deny", "fail", "silent"} {
				code, out := d.call(t, token, "POST", fmt.Sprintf("%s/sources/%d/poll", wsPath, ids[name]), nil)
				if code != 200 || out["status"] != "ok" || strings.HasPrefix(fmt.Sprint(out["next_poll_reason"]), "websub") {
					t.Errorf("poll of %s: %d %v; want it polled adaptively", name, code, out)
				}
			}
			if r, _ := subOf(t, st, ids["silent"]); r.State != model.SubPending {
				t.Errorf("never-verified subscription: %+v", r)
			}

			// Signed delivery → stored through the pipeline, as a push.
			site.publish("p2")
			pushed := []byte(hubFeed(site.URL, "ok", okHub.URL, "p2", "p1"))
			codes, err := okHub.Publish(ctx, site.URL+"/ok.xml", "application/rss+xml", pushed)
			if err != nil || len(codes) != 1 || codes[0] != http.StatusNoContent {
				t.Fatalf("publish: %v %v", codes, err)
			}
			p2 := site.URL + "/posts/p2"
			if n := countRows(t, st, `SELECT COUNT(*) FROM feed_articles WHERE external_url = ?`, p2); n != 1 {
				t.Fatalf("pushed item stored %d times", n)
			}
			if n := countRows(t, st, `SELECT COUNT(*) FROM poll_runs WHERE feed_source_id = ? AND outcome = 'pushed' AND items_new = 1`, ids["ok"]); n != 1 {
				t.Fatalf("%d pushed poll_runs rows with one new item", n)
			}

			// Unsigned, wrongly signed, sha1-signed: acknowledged; only the
			// last is stored. Unknown callbacks and oversized bodies refused.
			p3 := []byte(hubFeed(site.URL, "ok", okHub.URL, "p3"))
			for _, c := range []struct {
				sig  string
				want int
			}{{"", 202}, {websubtest.Sign("sha256", "not the secret", p3), 202}, {"md5=00", 202}} {
				if code, err := okHub.Deliver(ctx, callback, "application/rss+xml", p3, c.sig); err != nil || code != c.want {
					t.Errorf("delivery signed %q: %d %v, want %d", c.sig, code, err, c.want)
				}
			}
			if n := countRows(t, st, `SELECT COUNT(*) FROM feed_articles WHERE external_url = ?`, site.URL+"/posts/p3"); n != 0 {
				t.Fatalf("unsigned or wrongly signed item stored")
			}
			sub, err := st.SubscriptionOfSource(ctx, ids["ok"])
			if err != nil {
				t.Fatal(err)
			}
			secret := sub.Secret
			p4 := []byte(hubFeed(site.URL, "ok", okHub.URL, "p4"))
			if code, _ := okHub.Deliver(ctx, callback, "application/rss+xml", p4, websubtest.Sign("sha1", secret, p4)); code != 204 {
				t.Errorf("sha1-signed delivery: %d", code)
			}
			if code, _ := okHub.Deliver(ctx, public+"/websub/"+strings.Repeat("0", 48), "application/rss+xml", pushed,
				websubtest.Sign("sha256", secret, pushed)); code != 404 {
				t.Errorf("delivery to an unknown callback: %d, want 404", code)
			}
			big := []byte(hubFeed(site.URL, "ok", okHub.URL, "p5") + strings.Repeat(" ", 70000))
			if code, _ := okHub.Deliver(ctx, callback, "application/rss+xml", big, websubtest.Sign("sha256", secret, big)); code != 413 {
				t.Errorf("oversized delivery: %d, want 413", code)
			}
			if code, _ := okHub.Deliver(ctx, callback+"x", "application/rss+xml", nil, ""); code != 404 {
				t.Errorf("verification of an unknown callback: %d", code)
			}
			if resp, err := http.Get(callback + "?hub.mode=subscribe&hub.topic=" + site.URL + "/ok.xml&hub.challenge=abc&hub.lease_seconds=60"); err != nil || resp.StatusCode != 404 {
				t.Errorf("unrequested verification answered: %v %v", resp, err)
			} else {
				resp.Body.Close()
			}

			// The next poll lists p2 as well: one article still; the
			// source is polled as subscribed.
			code, out := d.call(t, token, "POST", fmt.Sprintf("%s/sources/%d/poll", wsPath, ids["ok"]), nil)
			if code != 200 || !strings.HasPrefix(fmt.Sprint(out["next_poll_reason"]), "websub: subscribed, safety poll") {
				t.Fatalf("poll of the subscribed source: %d %v", code, out)
			}
			if n := countRows(t, st, `SELECT COUNT(*) FROM feed_articles WHERE external_url = ?`, p2); n != 1 {
				t.Fatalf("item pushed then polled stored %d times", n)
			}

			// Renewal before the 6 s lease ends.
			waitFor(t, "the renewal verified", func() bool { r, _ := subOf(t, st, ids["ok"]); return r.Verifications >= 2 })
			renewed, _ := subOf(t, st, ids["ok"])
			if renewed.Token != okSub.Token || renewed.State != model.SubVerified || !renewed.Expires.After(*okSub.Expires) {
				t.Errorf("renewal: before %+v, after %+v", okSub, renewed)
			}

			// Surface: the API, sources list, /metrics.
			_, view := d.call(t, token, "GET", fmt.Sprintf("%s/sources/%d", wsPath, ids["ok"]), nil)
			if w, _ := view["websub"].(map[string]any); w["state"] != "verified" || w["secret"] != nil || w["deliveries"] != float64(2) {
				t.Errorf("API source websub: %v", view["websub"])
			}
			list := run("sources", "list")
			if line := regexp.MustCompile(`(?m)^` + fmt.Sprint(ids["ok"]) + ` .*$`).FindString(list); !strings.Contains(line, "websub: verified until ") {
				t.Errorf("sources list: %q", line)
			}
			metrics := d.metrics(t)
			for _, m := range []string{`feedpoller_websub_deliveries_total{outcome="stored"} 2`, `feedpoller_websub_deliveries_total{outcome="unsigned"} 1`,
				`feedpoller_websub_deliveries_total{outcome="bad_signature"} 2`, `feedpoller_websub_deliveries_total{outcome="unknown"} 2`,
				`feedpoller_websub_deliveries_total{outcome="too_large"} 1`, `feedpoller_websub_subscriptions{state="denied"} 1`} {
				if !strings.Contains(metrics, m) {
					t.Errorf("/metrics lacks %s:\n%s", m, grepLines(metrics, "websub"))
				}
			}

			// Pause → unsubscribed at the hub; delete → the hub told too.
			if code, _ := d.call(t, token, "PATCH", fmt.Sprintf("%s/sources/%d", wsPath, ids["ok"]), map[string]any{"is_active": false}); code != 200 {
				t.Fatalf("pause: %d", code)
			}
			waitFor(t, "the unsubscription verified", func() bool { r, _ := subOf(t, st, ids["ok"]); return r.State == model.SubUnsubscribed })
			// The hub drops the subscription once it has read the
			// callback's answer, just after the daemon stored it.
			waitFor(t, "the hub to drop the subscription", func() bool { return len(okHub.Subscriptions()) == 0 })
			if code, _ := d.call(t, token, "DELETE", fmt.Sprintf("%s/sources/%d", wsPath, ids["silent"]), nil); code/100 != 2 {
				t.Fatalf("delete: %d", code)
			}
			waitFor(t, "the silent hub told of the deletion", func() bool {
				for _, r := range silentHub.Requests() {
					if r.Mode == "unsubscribe" {
						return true
					}
				}
				return false
			})
			for _, l := range strings.Split(d.Output(), "\n") {
				if strings.Contains(l, "websub: ") && !strings.Contains(l, "refused") {
					t.Log(l)
				}
			}
			if err := d.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWebSubPauseFromTheCLI: `feedpoller sources set ID --active=false`,
// run beside the daemon, unsubscribes at the hub as the API's pause does
// (one path, the source service's), not at the next renewal days later;
// `--active=true` subscribes again. On both databases.
func TestWebSubPauseFromTheCLI(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			hub := websubtest.New(t, websubtest.Behaviour{})
			site := newHubSite(t, map[string]string{"feed": hub.URL})
			dir := t.TempDir()
			dbURL := testdb.URL(t, dialect)
			addr := daemontest.FreeAddr(t)
			env := quietEnv(dbURL, "FEEDPOLLER_FETCH_ATTEMPTS=1")
			run := func(args ...string) string { t.Helper(); return mustCLI(t, dir, env, args...) }
			ws := strings.TrimSpace(run("workspaces", "add", "--name", "pause", "--quiet"))
			id := strings.TrimSpace(run("sources", "add", "--workspace", ws, "--url", site.URL+"/feed.xml", "--quiet"))
			st := openTestStore(t, env)
			sourceID, err := strconv.ParseInt(id, 10, 64)
			if err != nil {
				t.Fatalf("sources add --quiet printed %q: %v", id, err)
			}

			d := startDaemon(t, dir, baseEnv(dbURL, "FEEDPOLLER_ADMIN_TOKEN=pause-admin-token", "FEEDPOLLER_POLLER_SCHEDULE=@every 1s",
				"FEEDPOLLER_FETCH_ATTEMPTS=1", "FEEDPOLLER_LISTEN="+addr, "FEEDPOLLER_PUBLIC_URL=http://"+addr,
				"FEEDPOLLER_WEBSUB_SYNC_INTERVAL=1s"))
			waitFor(t, "the subscription verified", func() bool { r, _ := subOf(t, st, sourceID); return r.State == model.SubVerified })
			if reqs := hub.Requests(); len(reqs) != 1 || reqs[0].LeaseAsked != 864000 {
				t.Fatalf("hub requests: %+v; want one subscription of ten days, renewed in days, not seconds", reqs)
			}

			if out := run("sources", "set", id, "--active=false"); !strings.Contains(out, "active false") {
				t.Fatalf("sources set --active=false: %s", out)
			}
			waitFor(t, "the unsubscription verified", func() bool { r, _ := subOf(t, st, sourceID); return r.State == model.SubUnsubscribed })
			waitFor(t, "the hub to drop the subscription", func() bool { return len(hub.Subscriptions()) == 0 })
			if reqs := hub.Requests(); len(reqs) != 2 || reqs[1].Mode != "unsubscribe" {
				t.Fatalf("hub requests after the pause: %+v", reqs)
			}

			run("sources", "set", id, "--active=true")
			waitFor(t, "the subscription made again", func() bool { r, _ := subOf(t, st, sourceID); return r.State == model.SubVerified })
			if err := d.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}
