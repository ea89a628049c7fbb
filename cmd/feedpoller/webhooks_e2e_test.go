package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/daemontest"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/webhooks/webhookstest"
)

// growingFeed serves a feed of its first n items, each with text of its
// own (so every item is a content item of its own), n set by the test.
type growingFeed struct {
	*httptest.Server
	n atomic.Int64
}

func newGrowingFeed(t *testing.T) *growingFeed {
	f := &growingFeed{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		var items strings.Builder
		for i := f.n.Load(); i >= 1; i-- {
			fmt.Fprintf(&items, `<item><title>Story number %d</title><link>http://%s/story/%d</link><guid>story-%d</guid>
<description>Summary of story %d.</description><content:encoded><![CDATA[<p>%s</p>]]></content:encoded></item>`,
				i, r.Host, i, i, i, strings.Repeat(fmt.Sprintf("Story %d tells of release %d and its changes. ", i, i*7), 12))
		}
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
<title>Growing Feed</title><link>http://%s/</link>%s</channel></rss>`, r.Host, items.String())
	}))
	t.Cleanup(f.Close)
	return f
}

// sqlOf opens the database the daemon uses, for the test to read.
func sqlOf(t *testing.T, dialect, url string) (*sql.DB, func(string) string) {
	t.Helper()
	driver, dsn := "postgres", url
	rebind := func(q string) string {
		for i := 1; strings.Contains(q, "?"); i++ {
			q = strings.Replace(q, "?", fmt.Sprintf("$%d", i), 1)
		}
		return q
	}
	if dialect == "sqlite" {
		driver, dsn = "sqlite", strings.TrimPrefix(url, "sqlite:")
		rebind = func(q string) string { return q }
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, rebind
}

// TestWebhookDeliveriesSurviveKill9 is the promise of webhooks: a receiver
// gets every promotion, each under one delivery id, correctly signed,
// across a kill -9 of the daemon. The first daemon delivers some
// promotions, then is killed while two deliveries are in flight (the
// receiver took them and holds its answer), eight more are leased to it
// and five promotions made just before the kill are still queued. The
// second daemon, on the same database, sends what is left: queued rows at
// once, the dead daemon's leased rows once their lease runs out. In the
// end every content item has exactly one delivery row, every delivery id
// reached the receiver, only the ids in flight at the kill arrived twice
// (the receiver deduplicates them by id), and no delivery was lost.
func TestWebhookDeliveriesSurviveKill9(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			const (
				token  = "kill9-admin-token"
				secret = "kill-nine-receiver-secret"
				// The sender's timeout must outlast the time from the held
				// sends to the kill, on a loaded machine too; the lease
				// outlasts the timeout.
				timeout = 15 * time.Second
				lease   = 16 * time.Second
			)
			receiver := webhookstest.NewReceiver(t, secret)
			feed := newGrowingFeed(t)
			feed.n.Store(5)
			dbURL := testdb.URL(t, dialect)
			// Loopback is reached through the allow list only, as an
			// operator would open one internal receiver.
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
				"FEEDPOLLER_DATABASE_URL=" + dbURL, "FEEDPOLLER_ADMIN_TOKEN=" + token,
				"FEEDPOLLER_FETCH_ALLOW=127.0.0.1", "FEEDPOLLER_FETCH_PER_DOMAIN_GAP=0", "FEEDPOLLER_POLLER_FETCH_ARTICLES=false",
				"FEEDPOLLER_POLLER_SCHEDULE=@every 1s", "FEEDPOLLER_WEBHOOKS_LEASE=" + lease.String(),
				"FEEDPOLLER_WEBHOOKS_TIMEOUT=" + timeout.String(), "FEEDPOLLER_WEBHOOKS_CONCURRENCY=2"}
			dir := t.TempDir()
			first := daemon{daemontest.Start(t, binary, dir, env)}
			db, q := sqlOf(t, dialect, dbURL)
			count := func(query string, args ...any) int {
				t.Helper()
				var n int
				if err := db.QueryRow(q(query), args...).Scan(&n); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
				return n
			}
			eventually := func(what string, limit time.Duration, cond func() bool) {
				t.Helper()
				// A hang guard, not a measure of speed.
				for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
					if cond() {
						return
					}
				}
				t.Fatalf("%s: not within %v", what, limit)
			}

			code, ws := first.call(t, token, "POST", "/api/intelligence/workspaces", map[string]any{"name": "pushed"})
			if code != 201 {
				t.Fatalf("workspace: %d %v", code, ws)
			}
			wsPath := fmt.Sprintf("/api/intelligence/workspaces/%v", ws["id"])
			if code, body := first.call(t, token, "POST", wsPath+"/webhooks", map[string]any{"url": receiver.URL + "/in", "secret": secret}); code != 201 {
				t.Fatalf("webhook: %d %v", code, body)
			}
			code, src := first.call(t, token, "POST", wsPath+"/sources", map[string]any{"url": feed.URL + "/feed.xml"})
			if code != 201 {
				t.Fatalf("source: %d %v", code, src)
			}
			pollNow := func(d daemon) {
				t.Helper()
				eventually("poll now", time.Minute, func() bool {
					code, _ := d.call(t, token, "POST", fmt.Sprintf("%s/sources/%v/poll", wsPath, src["id"]), nil)
					return code == 200 // 409 while the scheduler's poll holds the source
				})
			}

			// Phase 1: five promotions, delivered.
			eventually("first five delivered", 2*time.Minute, func() bool { return len(receiver.IDs()) == 5 })

			// Phase 2: the receiver holds its answers; ten more promotions
			// are claimed, two of them sent and held.
			receiver.Hold()
			feed.n.Store(15)
			pollNow(first)
			eventually("two deliveries in flight", 2*time.Minute, func() bool { return len(receiver.Held()) == 2 })
			heldAt := time.Now()
			// Five more promotions while the worker waits on the held two:
			// they stay queued.
			feed.n.Store(20)
			pollNow(first)
			if n := count(`SELECT COUNT(*) FROM content_items`); n != 20 {
				t.Fatalf("%d content items before the kill, want 20", n)
			}
			inFlight := receiver.Held()
			first.Kill()
			if time.Since(heldAt) >= timeout {
				t.Fatalf("the kill came %v after the sends, past their timeout: they were no longer in flight", time.Since(heldAt))
			}
			receiver.Release()
			atKill := map[string]int{
				"delivered": count(`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'delivered'`),
				"leased":    count(`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' AND lease_owner IS NOT NULL`),
				"queued":    count(`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' AND lease_owner IS NULL`),
			}
			t.Logf("at the kill: %d delivered, %d leased to the killed daemon (%d of them in flight: %v), %d queued",
				atKill["delivered"], atKill["leased"], len(inFlight), inFlight, atKill["queued"])
			if atKill["delivered"] != 5 || atKill["leased"] != 10 || atKill["queued"] != 5 {
				t.Fatalf("the kill did not find the state it is meant to: %v", atKill)
			}

			// Phase 3: a new daemon on the same database sends the rest.
			second := daemon{daemontest.Start(t, binary, dir, env)}
			eventually("all twenty delivered", lease+3*time.Minute, func() bool {
				return count(`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'delivered'`) == 20 && len(receiver.IDs()) == 20
			})

			// Every promotion has exactly one delivery row, and the row's
			// id is what the receiver got for that content item.
			if n := count(`SELECT COUNT(*) FROM content_items c WHERE (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.content_item_id = c.id) <> 1`); n != 0 {
				t.Errorf("%d content items without exactly one delivery", n)
			}
			if n := count(`SELECT COUNT(*) FROM webhook_deliveries`); n != 20 {
				t.Errorf("%d delivery rows for 20 promotions", n)
			}
			rows, err := db.Query(`SELECT id, content_item_id FROM webhook_deliveries`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			stored := map[string]int64{}
			for rows.Next() {
				var id string
				var item int64
				if err := rows.Scan(&id, &item); err != nil {
					t.Fatal(err)
				}
				stored[id] = item
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			items := map[int64]bool{}
			duplicates := 0
			held := map[string]bool{}
			for _, id := range inFlight {
				held[id] = true
			}
			for _, id := range receiver.IDs() {
				p := receiver.Payload(id)
				item, ok := stored[id]
				if !ok || p.ContentItem == nil || p.ContentItem.ID != item || items[item] {
					t.Errorf("delivery %s: stored for item %d (%v), received for %+v", id, item, ok, p.ContentItem)
					continue
				}
				items[item] = true
				if n := receiver.Count(id); n > 1 {
					duplicates += n - 1
					if !held[id] {
						t.Errorf("delivery %s arrived %d times but was not in flight at the kill", id, n)
					}
				}
				if p.ContentItem.Source.URL != feed.URL+"/feed.xml" || !strings.HasPrefix(p.ContentItem.Title, "Story number ") {
					t.Errorf("delivery %s payload %+v", id, p.ContentItem)
				}
			}
			if len(items) != 20 {
				t.Errorf("the receiver got %d distinct content items, want 20", len(items))
			}
			// Both signatures: X-Feedpoller-Signature, and the Standard
			// Webhooks headers checked as the specification says.
			if bad := receiver.BadSignatures(); bad != 0 {
				t.Errorf("%d requests with a bad signature", bad)
			}
			docs, err := os.ReadFile("../../docs/webhooks.md")
			if err != nil {
				t.Fatal(err)
			}
			if ua := receiver.LastHeader().Get("User-Agent"); !strings.Contains(string(docs), "\n    User-Agent: "+ua+"\n") {
				t.Errorf("the daemon sends User-Agent %q, which docs/webhooks.md does not show", ua)
			}
			t.Logf("receiver: %d requests, %d delivery ids (one per promotion), %d duplicate arrivals (ids in flight at the kill), %d bad signatures",
				receiver.Requests(), len(receiver.IDs()), duplicates, receiver.BadSignatures())
			if duplicates > len(inFlight) {
				t.Errorf("%d duplicate arrivals, more than the %d in flight at the kill", duplicates, len(inFlight))
			}
			if err := second.Stop(t, os.Interrupt, time.Minute); err != nil {
				t.Errorf("daemon exit after SIGINT: %v", err)
			}
			if !strings.Contains(second.Output(), "webhook worker stopped") {
				t.Errorf("the daemon did not stop its webhook worker on SIGINT:\n%s", second.Output())
			}
		})
	}
}
