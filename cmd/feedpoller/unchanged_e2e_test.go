package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/daemontest"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

// TestDaemonLeavesSettledEntriesUnread: the running daemon remembers the
// entries its polls stored, and a later poll of the changed feed parses
// only the new one; the API's poll answer counts the others as
// duplicates left unread.
func TestDaemonLeavesSettledEntriesUnread(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			var mu sync.Mutex
			items := []string{"c", "b", "a"}
			feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				var b strings.Builder
				// The build date changes at every request, as real feeds' do.
				fmt.Fprintf(&b, `<?xml version="1.0"?><rss version="2.0"><channel><title>Changing</title><link>http://site.example/</link><lastBuildDate>%s</lastBuildDate>`,
					time.Now().UTC().Format(time.RFC1123Z))
				for _, id := range items {
					fmt.Fprintf(&b, `<item><title>Story %s</title><link>http://site.example/%s</link><guid>%s</guid><description>&lt;p&gt;The story called %s, told at some length so that it reads as an article.&lt;/p&gt;</description></item>`, id, id, id, id)
				}
				b.WriteString(`</channel></rss>`)
				w.Header().Set("Content-Type", "application/rss+xml")
				_, _ = w.Write([]byte(b.String()))
			}))
			t.Cleanup(feed.Close)

			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect))
			ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "changing", "--quiet"))
			id := strings.TrimSpace(mustCLI(t, dir, env, "sources", "add", "--workspace", ws, "--url", feed.URL+"/feed.xml", "--quiet"))
			const token = "unchanged-admin-token"
			d := startDaemon(t, dir, append(env, "FEEDPOLLER_ADMIN_TOKEN="+token, "FEEDPOLLER_POLLER_SCHEDULE=@every 1h",
				"FEEDPOLLER_LISTEN="+daemontest.FreeAddr(t)))
			path := "/api/intelligence/workspaces/" + ws + "/sources/" + id + "/poll"
			poll := func() map[string]any {
				t.Helper()
				var out map[string]any
				waitFor(t, "a poll answered", func() bool {
					var code int
					code, out = d.call(t, token, "POST", path, nil)
					return code == http.StatusOK
				})
				return out
			}

			// The scheduler may have polled the new source first: either way
			// the three entries are stored and settled after this poll.
			if out := poll(); out["status"] != "ok" || out["items_seen"] != 3.0 {
				t.Fatalf("first poll: %v", out)
			}
			mu.Lock()
			items = append([]string{"d"}, items...)
			mu.Unlock()
			out := poll()
			if out["items_seen"] != 4.0 || out["items_new"] != 1.0 || out["items_duplicate"] != 3.0 || out["items_unchanged"] != 3.0 {
				t.Fatalf("poll of the changed feed: %v; want 4 seen, 1 new, 3 duplicates left unread", out)
			}
		})
	}
}
