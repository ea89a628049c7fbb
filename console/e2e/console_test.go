package e2e_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/internal/browsertest"
	"github.com/feedpoller/feedpoller/internal/hostile"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

const typedTitle = `<script>alert("typed")</script> Markup`

// TestConsoleInChromium walks the console as a person would, in a real
// browser against the real binary: sign in, add a feed from the loopback
// farm and watch its first poll land, pause it, read the digest and follow
// a citation to the article, search, sign out; then a read-only token sees
// no write control and its forged form gets 403. Hostile titles show as
// text, no script fails, and no page asks anything of another host.
func TestConsoleInChromium(t *testing.T) {
	if browsertest.Binary() == "" {
		t.Skip("Chromium is not installed: the browser tests need it (Debian: apt-get install -y chromium; .ci/run installs it)")
	}
	farm := httptest.NewServer(feedfarm.New(feedfarm.Options{Feeds: 3, ItemsPerFeed: 5, BodyBytes: 1500}).Handler())
	t.Cleanup(farm.Close)
	h := hostile.New()
	t.Cleanup(h.Close)
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			d := startDaemon(t, dialect)
			ws := apiCall(t, d, "POST", "/workspaces", map[string]any{"name": "console e2e"})
			wsID := int64(ws["id"].(float64))
			wsPath := fmt.Sprintf("/workspaces/%d", wsID)
			reader := apiCall(t, d, "POST", wsPath+"/tokens", map[string]any{"name": "reader", "read_only": true})["token"].(string)
			// The markup feed gives the digest its stories (its items are
			// undated, so they are reported now) and hostile text.
			// The feed layer strips tags from titles, so a title typed with
			// markup is how a tag reaches the pages as stored text.
			apiCall(t, d, "POST", wsPath+"/sources", map[string]any{"url": h.EndpointURL("markup"), "title": typedTitle})

			b := browsertest.Start(t, 1280, 900)
			ctx, cancel := context.WithTimeout(b.Ctx, 4*time.Minute) // a hang guard
			defer cancel()
			ui := d.Base + "/ui"

			// Sign in.
			do(t, ctx, chromedp.Navigate(ui+"/"))
			waitText(t, ctx, "h1", "Sign in")
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), adminToken),
				chromedp.Click(chromedp.CSS("main form button[type=submit]")))
			waitText(t, ctx, "main h1", "Sources")
			waitText(t, ctx, "header", "configured admin token")
			waitText(t, ctx, "main table", typedTitle) // shown as the text it is
			if n := eval[int](t, ctx, `document.querySelectorAll("main script").length`); n != 0 {
				t.Errorf("the typed title became %d script elements", n)
			}

			// The first Tab reaches the skip link: the page is keyboard usable
			// from its top.
			do(t, ctx, chromedp.KeyEvent("\t"))
			if got := eval[string](t, ctx, `document.activeElement.textContent`); got != "Skip to the content" {
				t.Errorf("the first Tab focuses %q, want the skip link", got)
			}

			// Add a source from the farm and see its first poll land.
			do(t, ctx, chromedp.Click(chromedp.CSS(`main a[href$="/sources/new"]`)))
			waitText(t, ctx, "main h1", "Add a source")
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#url"), farm.URL+"/feed/0.xml"),
				chromedp.SendKeys(chromedp.CSS("#category"), "Farm"),
				chromedp.Click(chromedp.CSS("main form button[type=submit]")))
			waitText(t, ctx, "main", "The feed answered with 5 items")
			waitText(t, ctx, "main", "new content fetched") // the page reloads itself until the poll lands
			waitText(t, ctx, "main", "5 new")

			// Pause it.
			do(t, ctx, chromedp.Click(chromedp.CSS(`main form[action$="/pause"] button`)))
			waitText(t, ctx, "main", "Paused: the scheduler no longer polls it.")
			waitText(t, ctx, "main dl", "paused")

			// Read the digest and follow a citation to the article.
			do(t, ctx, chromedp.Click(chromedp.CSS(`nav a[href$="/digest"]`)))
			waitText(t, ctx, "main", "Breaking")
			waitText(t, ctx, "main", `"> Second markup story`) // the quote that would end an attribute, as text
			if n := eval[int](t, ctx, `document.querySelectorAll("main img, main script, main iframe, main b").length`); n != 0 {
				t.Errorf("the digest holds %d elements that came from feed text", n)
			}
			do(t, ctx, chromedp.Click(chromedp.CSS(`ol.stories .citations a[href*="/articles/"]`)))
			waitText(t, ctx, "main", "Read the original")
			if n := eval[int](t, ctx, `document.querySelectorAll('main a[href^="javascript:"], main img, main iframe, main [onclick]').length`); n != 0 {
				t.Errorf("the article holds %d unsafe elements", n)
			}

			// Search with the API's syntax.
			do(t, ctx, chromedp.Click(chromedp.CSS(`nav a[href$="/search"]`)))
			waitText(t, ctx, "main h1", "Search")
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#q"), `markup -nothingmatches`),
				chromedp.Click(chromedp.CSS("main form button[type=submit]")))
			waitText(t, ctx, "main", "found")
			if n := eval[int](t, ctx, `document.querySelectorAll("ol.results li").length`); n == 0 {
				t.Error("the search found nothing")
			}

			// The activity page draws its charts.
			do(t, ctx, chromedp.Click(chromedp.CSS(`nav a[href$="/activity"]`)))
			waitText(t, ctx, "main", "Polls per hour")
			if n := eval[int](t, ctx, `document.querySelectorAll("svg.bars rect").length`); n == 0 {
				t.Error("the activity charts have no bars")
			}

			// Sign out.
			do(t, ctx, chromedp.Click(chromedp.CSS(`header .signout button`)))
			waitText(t, ctx, "main", "You are signed out.")
			do(t, ctx, chromedp.Navigate(ui+"/w/"+fmt.Sprint(wsID)+"/sources"))
			waitText(t, ctx, "h1", "Sign in")

			// A read-only token: no write control, and a forged form is refused.
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), reader),
				chromedp.Click(chromedp.CSS("main form button[type=submit]")))
			waitText(t, ctx, "main h1", "Sources")
			waitText(t, ctx, "header", "read-only")
			if n := eval[int](t, ctx, `document.querySelectorAll('main form[method="post"], main a[href$="/sources/new"]').length`); n != 0 {
				t.Errorf("a read-only token sees %d write controls on the sources page", n)
			}
			do(t, ctx, chromedp.Click(chromedp.CSS(`main tbody a[href*="/sources/"]`)))
			waitText(t, ctx, "main", "Recent polls")
			if n := eval[int](t, ctx, `document.querySelectorAll('main form, main a.danger').length`); n != 0 {
				t.Errorf("a read-only token sees %d write controls on a source", n)
			}
			status := eval[int](t, ctx, `(async () => {
				const csrf = document.querySelector('input[name="csrf"]').value;
				const r = await fetch(location.pathname + "/pause", {method: "POST", body: new URLSearchParams({csrf})});
				return r.status; })()`)
			if status != 403 {
				t.Errorf("a forged pause by a read-only token answered %d, want 403", status)
			}
			srcs := apiCall(t, d, "GET", wsPath+"/sources", nil)["items"].([]any)
			for _, s := range srcs {
				src := s.(map[string]any)
				if strings.Contains(src["url"].(string), "markup") && src["is_active"] != true {
					t.Errorf("the forged form paused a source: %v", src)
				}
			}

			if p := b.Problems(); len(p) > 0 {
				t.Errorf("the pages logged problems: %v", p)
			}
			if f := b.ForeignRequests(strings.TrimPrefix(d.Base, "http://")); len(f) > 0 {
				t.Errorf("the pages requested other hosts: %v", f)
			}
		})
	}
}
