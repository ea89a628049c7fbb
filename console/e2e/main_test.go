// Package e2e drives the real feedpoller binary's web console in headless
// Chromium, on SQLite and PostgreSQL, against feeds served on loopback.
package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/feedpoller/feedpoller/internal/daemontest"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

var binary string

func TestMain(m *testing.M) { daemontest.Main(m, "../../cmd/feedpoller", &binary) }

const adminToken = "console-e2e-admin-token"

// startDaemon runs `feedpoller serve` on the dialect's database, polling
// every second, allowed to reach the loopback feeds.
func startDaemon(t *testing.T, dialect string) *daemontest.Daemon {
	return daemontest.Start(t, binary, t.TempDir(), []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"FEEDPOLLER_DATABASE_URL=" + testdb.URL(t, dialect), "FEEDPOLLER_ADMIN_TOKEN=" + adminToken,
		"FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true", "FEEDPOLLER_FETCH_PER_DOMAIN_GAP=0", "FEEDPOLLER_FETCH_RESPECT_ROBOTS=false",
		"FEEDPOLLER_POLLER_SCHEDULE=@every 1s", "FEEDPOLLER_LOG_LEVEL=info"})
}

// apiCall makes an admin API request and decodes its JSON answer.
func apiCall(t *testing.T, d *daemontest.Daemon, method, path string, body any) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, d.Base+"/api/intelligence"+path, rd)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return out
}

// waitText waits until the text of sel contains want, reloading nothing
// itself (pages that wait for a poll reload on their own); the deadline
// guards against a hang, it measures nothing.
func waitText(t *testing.T, ctx context.Context, sel, want string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		text, err := chromedp.Run(qctx, chromedp.Text(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			last = text
			if strings.Contains(text, want) {
				return text
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	t.Fatalf("%s never showed %q (at %s); last:\n%s", sel, want, loc, last)
	return ""
}

func do(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		t.Fatalf("at %s: %v", loc, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}
