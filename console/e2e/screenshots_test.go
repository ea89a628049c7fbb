package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/internal/browsertest"
	"github.com/feedpoller/feedpoller/internal/hostile"
)

// TestScreenshots writes PNGs of the console's main pages, at a desktop
// and a phone width, into $FEEDPOLLER_SCREENSHOTS, for a person to look
// at (scripts/screenshots.sh runs it). Without the variable it does
// nothing.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("FEEDPOLLER_SCREENSHOTS")
	if dir == "" {
		t.Skip("set FEEDPOLLER_SCREENSHOTS to a directory to write screenshots (scripts/screenshots.sh)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	farm := httptest.NewServer(feedfarm.New(feedfarm.Options{Feeds: 4, ItemsPerFeed: 8, BodyBytes: 1800}).Handler())
	t.Cleanup(farm.Close)
	h := hostile.New()
	t.Cleanup(h.Close)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)

	d := startDaemon(t, "sqlite")
	ws := apiCall(t, d, "POST", "/workspaces", map[string]any{"name": "newsroom"})
	wsPath := fmt.Sprintf("/workspaces/%v", ws["id"])
	apiCall(t, d, "POST", wsPath+"/webhooks", map[string]any{"url": hook.URL + "/promoted"})
	cats := []string{"Energy", "Energy/Grid", "Tech", "Tech"}
	var ids []any
	for n := range 4 {
		src := apiCall(t, d, "POST", wsPath+"/sources", map[string]any{"url": fmt.Sprintf("%s/feed/%d.xml", farm.URL, n), "category": cats[n]})
		ids = append(ids, src["id"])
	}
	apiCall(t, d, "POST", wsPath+"/sources", map[string]any{"url": h.EndpointURL("markup"), "title": `<script>alert("typed")</script> Markup News`})
	// A feed that answers 404 at its next poll: a failing source to show.
	var gone atomic.Bool
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, farm.URL+"/feed/1.xml", http.StatusFound)
	}))
	t.Cleanup(failing.Close)
	broken := apiCall(t, d, "POST", wsPath+"/sources", map[string]any{"url": failing.URL + "/moved.xml", "title": "Moved away"})
	apiCall(t, d, "POST", wsPath+"/tokens", map[string]any{"name": "dashboard reader", "read_only": true})
	// Wait for the scheduler's first polls, then poll the farm again so
	// the chart has more than one bar.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		items := apiCall(t, d, "GET", wsPath+"/sources", nil)["items"].([]any)
		polled := 0
		for _, s := range items {
			if s.(map[string]any)["last_polled_at"] != nil {
				polled++
			}
		}
		if polled == len(items) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	for _, id := range ids[:2] {
		apiCall(t, d, "POST", fmt.Sprintf("%s/sources/%v/poll", wsPath, id), nil)
	}
	apiCall(t, d, "PATCH", fmt.Sprintf("%s/sources/%v", wsPath, ids[3]), map[string]any{"is_active": false})
	gone.Store(true)
	apiCall(t, d, "POST", fmt.Sprintf("%s/sources/%v/poll", wsPath, broken["id"]), nil)

	b := browsertest.Start(t, 1280, 900)
	ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Minute) // a hang guard
	defer cancel()
	ui := d.Base + "/ui"
	do(t, ctx, chromedp.Navigate(ui+"/signin"))
	shoot(t, ctx, dir, "signin")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), adminToken),
		chromedp.Click(chromedp.CSS("main form button[type=submit]")))
	waitText(t, ctx, "main h1", "Sources")
	w := fmt.Sprintf("%s/w/%v", ui, ws["id"])
	digest := func() string {
		do(t, ctx, chromedp.Navigate(w+"/digest"))
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
		if m := regexp.MustCompile(`href="(/ui/w/\d+/articles/\d+)"`).FindStringSubmatch(html); m != nil {
			return d.Base + m[1]
		}
		return w + "/articles/1"
	}
	pages := []struct{ name, url string }{
		{"sources", w + "/sources"},
		{"source", fmt.Sprintf("%s/sources/%v", w, ids[0])},
		{"source-new-error", ""},
		{"activity", w + "/activity"},
		{"digest", w + "/digest"},
		{"article", ""},
		{"search", w + "/search?q=report+OR+markup"},
		{"items", w + "/items"},
		{"opml", w + "/opml"},
		{"webhooks", w + "/webhooks"},
		{"tokens", w + "/tokens"},
	}
	for _, width := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		do(t, ctx, chromedp.EmulateViewport(width.w, width.h))
		for _, p := range pages {
			switch p.name {
			case "source-new-error":
				do(t, ctx, chromedp.Navigate(w+"/sources/new"),
					chromedp.SendKeys(chromedp.CSS("#url"), "ftp://example.com/feed"),
					chromedp.Click(chromedp.CSS("main form button[type=submit]")))
				waitText(t, ctx, "main", "must be an http(s) URL")
			case "article":
				do(t, ctx, chromedp.Navigate(digest()))
				waitText(t, ctx, "main", "Read the original")
			default:
				do(t, ctx, chromedp.Navigate(p.url))
				waitText(t, ctx, "main h1", "")
			}
			shoot(t, ctx, dir, p.name+"-"+width.name)
		}
	}
	t.Logf("screenshots in %s", dir)
}

func shoot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
