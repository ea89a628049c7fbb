package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/daemontest"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

// binary is the real feedpoller, built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) { daemontest.Main(m, ".", &binary) }

// site serves a feed and a web page on loopback.
func site(t *testing.T) *httptest.Server {
	var paras strings.Builder
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&paras, "<p>Paragraph %d about golang release engineering, with enough words to be a real article body here.</p>", i)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
<title>Go News</title><link>http://%s/</link>
<item><title>Golang 1.26 is out</title><link>http://%s/posts/1</link><guid>p1</guid><content:encoded><![CDATA[<h2>Release</h2>%s]]></content:encoded></item>
<item><title>Knitting patterns</title><link>http://%s/posts/2</link><guid>p2</guid><content:encoded><![CDATA[<p>Wool and needles, nothing else.</p>%s]]></content:encoded></item>
</channel></rss>`, r.Host, r.Host, paras.String(), r.Host, strings.ReplaceAll(paras.String(), "golang release engineering", "wool"))
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Golang policy page</title><meta name="description" content="Our policy"></head>
<body><nav><a href="/">Home</a></nav><article><h1>Golang policy page</h1>%s</article><footer>© 2026</footer></body></html>`, paras.String())
	})
	mux.HandleFunc("/file.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4 binary"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// daemon is a running `feedpoller serve`.
type daemon struct{ *daemontest.Daemon }

func baseEnv(dbURL string, extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"FEEDPOLLER_DATABASE_URL=" + dbURL, "FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true",
		"FEEDPOLLER_FETCH_PER_DOMAIN_GAP=0", "FEEDPOLLER_FETCH_RESPECT_ROBOTS=false", "FEEDPOLLER_LOG_LEVEL=debug"}
	return append(env, extra...)
}

func startDaemon(t *testing.T, dir string, env []string) daemon {
	t.Helper()
	return daemon{daemontest.Start(t, binary, dir, env)}
}

// call makes an API request and decodes the JSON answer.
func (d daemon) call(t *testing.T, token, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, d.Base+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil {
		out = map[string]any{"raw": string(raw)}
	}
	return resp.StatusCode, out
}

func TestDaemonEndToEnd(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			web := site(t)
			const token = "e2e-admin-token"
			d := startDaemon(t, t.TempDir(), baseEnv(testdb.URL(t, dialect), "FEEDPOLLER_ADMIN_TOKEN="+token,
				"FEEDPOLLER_POLLER_SCHEDULE=@every 1s"))

			if code, _ := d.call(t, "", "GET", "/api/intelligence/workspaces", nil); code != 401 {
				t.Fatalf("no token: %d, want 401", code)
			}
			code, ws := d.call(t, token, "POST", "/api/intelligence/workspaces", map[string]any{
				"name": "go", "relevance_profile": map[string]any{"keywords": []map[string]any{{"term": "golang", "weight": 1}}, "threshold": 0.2}})
			if code != 201 {
				t.Fatalf("create workspace: %d %v", code, ws)
			}
			wsPath := fmt.Sprintf("/api/intelligence/workspaces/%v", ws["id"])
			code, src := d.call(t, token, "POST", wsPath+"/sources", map[string]any{"url": web.URL + "/feed.xml"})
			if code != 201 || src["feed_title"] != "Go News" || src["initial_article_count"] != float64(2) {
				t.Fatalf("create rss source: %d %v", code, src)
			}
			code, page := d.call(t, token, "POST", wsPath+"/sources", map[string]any{"url": web.URL + "/page", "source_type": "web"})
			if code != 201 || page["polling_interval_minutes"] != float64(360) {
				t.Fatalf("create web source: %d %v", code, page)
			}
			code, pdf := d.call(t, token, "POST", wsPath+"/sources", map[string]any{"url": web.URL + "/file.pdf", "source_type": "web"})
			if code != 400 || !strings.Contains(fmt.Sprint(pdf), "application/pdf") {
				t.Fatalf("create web source for a PDF: %d %v, want 400 naming the content type", code, pdf)
			}

			// The scheduler polls both sources on its own. The deadline only
			// guards against a hang: the two polls take well under a second.
			var items []any
			deadline := time.Now().Add(3 * time.Minute)
			for time.Now().Before(deadline) {
				_, list := d.call(t, token, "GET", wsPath+"/content-items", nil)
				items, _ = list["items"].([]any)
				if len(items) >= 2 {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if len(items) != 2 {
				t.Fatalf("content items after polling: %d, want 2 (the golang post and the golang page)", len(items))
			}
			_, arts := d.call(t, token, "GET", wsPath+"/articles", nil)
			if n := len(arts["items"].([]any)); n != 3 {
				t.Fatalf("articles: %d, want 3", n)
			}
			first := items[0].(map[string]any)
			_, item := d.call(t, token, "GET", fmt.Sprintf("%s/content-items/%v", wsPath, first["id"]), nil)
			if md, _ := item["content_markdown"].(string); !strings.Contains(md, "golang release engineering") {
				t.Fatalf("content item markdown: %v", item)
			}

			// Poll now, through the API and the real poller.
			code, polled := d.call(t, token, "POST", fmt.Sprintf("%s/sources/%v/poll", wsPath, src["id"]), nil)
			if code != 200 || polled["status"] != "ok" || polled["items_seen"] != float64(2) || polled["items_duplicate"] != float64(2) {
				t.Fatalf("poll now: %d %v, want ok with 2 seen, 2 duplicates", code, polled)
			}
			_, srcView := d.call(t, token, "GET", fmt.Sprintf("%s/sources/%v", wsPath, src["id"]), nil)
			if srcView["last_polled_status"] != "ok" || srcView["consecutive_failures"] != float64(0) {
				t.Fatalf("source after polls: %v", srcView)
			}

			// SIGTERM: the daemon stops cleanly.
			if err := d.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
				t.Fatalf("daemon exit after SIGTERM: %v", err)
			}
		})
	}
}

// Without FEEDPOLLER_ADMIN_TOKEN, the first start generates an admin token
// and writes it to a file only its user can read: the output (which Docker
// and systemd keep) shows the path, never the token. Once the variable is
// set, the generated token stops working and its file is removed.
func TestGeneratedAdminTokenGoesToAFile(t *testing.T) {
	dir := t.TempDir()
	env := baseEnv("sqlite:" + filepath.Join(dir, "db", "fp.db"))
	d := startDaemon(t, dir, env)
	tokenFile := filepath.Join(dir, "db", "admin-token")
	raw, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatalf("no token file: %v\n%s", err, d.Output())
	}
	token := strings.TrimSpace(string(raw))
	if len(token) != 43 {
		t.Fatalf("token file holds %q", raw)
	}
	if fi, _ := os.Stat(tokenFile); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if strings.Contains(d.Output(), token) || !strings.Contains(d.Output(), tokenFile) {
		t.Fatalf("output shows the token or lacks its file's path:\n%s", d.Output())
	}
	if code, _ := d.call(t, token, "GET", "/api/intelligence/workspaces", nil); code != 200 {
		t.Fatalf("generated token refused: %d", code)
	}
	if err := d.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
		t.Errorf("stop the daemon: %v", err)
	}

	d2 := startDaemon(t, dir, env)
	if strings.Contains(d2.Output(), "admin-token") {
		t.Fatalf("second start generated again:\n%s", d2.Output())
	}
	if code, _ := d2.call(t, token, "GET", "/api/intelligence/workspaces", nil); code != 200 {
		t.Fatalf("generated token refused after restart: %d", code)
	}
	if err := d2.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
		t.Errorf("stop the second daemon: %v", err)
	}
	out, err := cli(t, dir, env, "sql", "SELECT token_hash FROM api_tokens")
	if err != nil || strings.Contains(out, token) || !strings.Contains(out, "token_hash") {
		t.Fatalf("stored tokens (%v): %s; want only a hash", err, out)
	}

	const configured = "configured-admin-token-0123456789"
	d3 := startDaemon(t, dir, append(env, "FEEDPOLLER_ADMIN_TOKEN="+configured))
	if code, _ := d3.call(t, token, "GET", "/api/intelligence/workspaces", nil); code != 401 {
		t.Fatalf("generated token with FEEDPOLLER_ADMIN_TOKEN set: %d, want 401", code)
	}
	if code, _ := d3.call(t, configured, "GET", "/api/intelligence/workspaces", nil); code != 200 {
		t.Fatalf("configured token: %d", code)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Fatalf("the revoked token's file is still there (%v)", err)
	}
}

// In production, web pages need Firecrawl unless the native fetcher is
// chosen explicitly: without FIRECRAWL_API_KEY, web.fetcher firecrawl and
// the default auto refuse to start, naming both ways out.
func TestProductionRefusesFirecrawlWithoutKey(t *testing.T) {
	for _, fetcher := range []string{"firecrawl", "auto", ""} {
		t.Run("fetcher="+fetcher, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard: it exits at once
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, "serve")
			cmd.Dir = dir
			cmd.Env = baseEnv("sqlite:"+filepath.Join(dir, "fp.db"), "FEEDPOLLER_ENV=production",
				"FEEDPOLLER_LISTEN="+daemontest.FreeAddr(t))
			if fetcher != "" {
				cmd.Env = append(cmd.Env, "FEEDPOLLER_WEB_FETCHER="+fetcher)
			}
			out, err := cmd.CombinedOutput()
			if err == nil || ctx.Err() != nil || !strings.Contains(string(out), "FIRECRAWL_API_KEY") ||
				!strings.Contains(string(out), "FEEDPOLLER_WEB_FETCHER=native") {
				t.Fatalf("production, fetcher %q, no key: err %v, output %q; want a refusal naming FIRECRAWL_API_KEY and FEEDPOLLER_WEB_FETCHER=native",
					fetcher, err, out)
			}
		})
	}
	t.Run("native", func(t *testing.T) {
		dir := t.TempDir()
		d := startDaemon(t, dir, baseEnv("sqlite:"+filepath.Join(dir, "fp.db"), "FEEDPOLLER_ENV=production",
			"FEEDPOLLER_WEB_FETCHER=native", "FEEDPOLLER_ADMIN_TOKEN=production-admin-token"))
		if err := d.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
			t.Fatalf("production with the native fetcher chosen: %v", err)
		}
	})
}

func TestCLIQuickStart(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			web := site(t)
			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect)) // as the README runs it: stdout is the output
			run := func(args ...string) string {
				t.Helper()
				return mustCLI(t, dir, env, args...)
			}
			run("workspaces", "add", "--name", "other")
			ws := strings.TrimSpace(run("workspaces", "add", "--name", "go", "--keyword", "golang:2", "--quiet"))
			if ws != "2" {
				t.Fatalf("workspaces add --quiet printed %q, want the id alone", ws)
			}
			if out := run("sources", "add", "--workspace", ws, "--url", web.URL+"/feed.xml"); !strings.Contains(out, `feed "Go News" with 2 items`) {
				t.Fatalf("sources add: %s", out)
			}
			if out := run("poll"); !strings.Contains(out, "ok http=200 seen=2 new=2 duplicate=0 promoted=1") {
				t.Fatalf("poll: %s", out)
			}
			out := run("sql", "SELECT title FROM content_items")
			if !strings.Contains(out, "Golang 1.26 is out") || strings.Contains(out, "Knitting") {
				t.Fatalf("sql: %s", out)
			}
			if out := run("sources", "list"); !regexp.MustCompile(`(?m)^\d+ +\d+ +rss +true +ok +0 +adaptive +\S+ +adaptive: `).MatchString(out) {
				t.Fatalf("sources list: %s", out)
			}
		})
	}
}
