package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// TestFirecrawlHeldToAddressPolicy runs the real binary with Firecrawl
// configured as a user configures it, private networks closed and only
// the feed's host allowed. A feed item links to the cloud metadata
// address: the rendering tier must not hand it to Firecrawl (a fake that
// fetches for real, the metadata address leading to a canary), and a web
// source there is refused when it is added.
func TestFirecrawlHeldToAddressPolicy(t *testing.T) {
	var canaryHits atomic.Int32
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		canaryHits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><article>%s<p>AKIA-INSTANCE-SECRET</p></article></body></html>",
			strings.Repeat("<p>Instance role credentials for the production account, rotated hourly by the agent.</p>", 8))
	}))
	t.Cleanup(canary.Close)
	fc := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited, FetchTargets: true,
		Routes: map[string]string{"169.254.169.254:80": canary.Listener.Addr().String()}})
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Hostile</title><link>http://feeds.test/</link>
<item><title>Look here</title><link>http://169.254.169.254/latest/meta-data/</link><guid>m1</guid>
<description>A short teaser.</description></item></channel></rss>`)
	}))
	t.Cleanup(feed.Close)

	dir := t.TempDir()
	env := baseEnv("sqlite:"+filepath.Join(dir, "fp.db"),
		"FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=false", "FEEDPOLLER_FETCH_ALLOW=127.0.0.1",
		"FIRECRAWL_API_KEY=fc-test", "FIRECRAWL_API_URL="+fc.URL)
	run := func(args ...string) (string, error) {
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("feedpoller %v: %v\n%s", args, err, out)
		}
		return out
	}
	must("workspaces", "add", "--name", "everything")
	must("sources", "add", "--workspace", "1", "--url", feed.URL+"/feed.xml")
	if out := must("poll"); !strings.Contains(out, "ok http=200 seen=1 new=1") {
		t.Fatalf("poll: %s", out)
	}
	out := must("sql", "SELECT extraction_method, content_markdown FROM feed_articles")
	if strings.Contains(out, "AKIA-INSTANCE-SECRET") || strings.Contains(out, "rendered_page") {
		t.Fatalf("the metadata service's answer was stored:\n%s", out)
	}

	out, err := run("sources", "add", "--workspace", "1", "--type", "web", "--url", "http://169.254.169.254/latest/meta-data/")
	want := "host 169.254.169.254 is not allowed (link-local); set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("adding a web source at the metadata address: %v\n%s\nwant a refusal saying %q", err, out, want)
	}
	if n := len(fc.Requests()); n != 0 {
		t.Errorf("%d scrape requests reached Firecrawl, want none", n)
	}
	if n := canaryHits.Load(); n != 0 {
		t.Errorf("the metadata service was reached %d times", n)
	}
}
