package console_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/hostile"
	"github.com/feedpoller/feedpoller/model"
)

// newsSite serves a small feed on loopback.
func newsSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Loopback News</title><link>http://%[1]s/</link>
<item><title>Golang release ships</title><link>http://%[1]s/posts/1</link><guid>p1</guid><description>The golang release ships with generics improvements and faster builds for everyone.</description></item>
<item><title>Gardening tips</title><link>http://%[1]s/posts/2</link><guid>p2</guid><description>Tomatoes like sun and water, and golang programmers like tomatoes.</description></item>
</channel></rss>`, r.Host)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Not a feed</title></head><body><p>hello</p></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

var sourceLink = regexp.MustCompile(`/sources/(\d+)`)

// TestSourceLifecycle: add (a refused URL shows its reason beside the
// field; a feed is added and validated), poll now (the outcome shown),
// pause, resume, filter, and delete after a confirmation page.
func TestSourceLifecycle(t *testing.T) {
	site := newsSite(t)
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.workspace("news")
		b := e.browser()
		b.signIn(e.admin)
		p := b.get(wsPath(ws.ID, "/sources/new"))
		wantStatus(t, p, http.StatusOK)
		wantIn(t, p, `<label for="url">URL</label>`, `name="source_type" value="web"`)

		p = b.post(wsPath(ws.ID, "/sources"), url.Values{"url": {"ftp://example.com/x"}})
		wantStatus(t, p, http.StatusBadRequest)
		wantIn(t, p, `id="url-error"`, "The URL must be an http(s) URL", `aria-invalid="true"`, `value="ftp://example.com/x"`)
		p = b.post(wsPath(ws.ID, "/sources"), url.Values{"url": {site.URL + "/page"}, "source_type": {"rss"}})
		wantStatus(t, p, http.StatusBadRequest)
		wantIn(t, p, "The URL is not a readable feed")
		p = b.post(wsPath(ws.ID, "/sources"), url.Values{"url": {site.URL + "/feed.xml"}, "polling_interval_minutes": {"often"}})
		wantStatus(t, p, http.StatusBadRequest)
		wantIn(t, p, "The interval must be a whole number of minutes")
		if srcs, _ := e.svc.ListSources(context.Background(), ws.ID); len(srcs) != 0 {
			t.Fatalf("refused forms stored %d sources", len(srcs))
		}

		p = b.post(wsPath(ws.ID, "/sources"), url.Values{"url": {site.URL + "/feed.xml"}, "source_type": {"rss"}, "category": {"Tech/Go"}})
		wantStatus(t, p, http.StatusSeeOther)
		m := sourceLink.FindStringSubmatch(p.Location)
		if m == nil {
			t.Fatalf("added: redirected to %q", p.Location)
		}
		srcPath := wsPath(ws.ID, "/sources/"+m[1])
		p = b.follow(p)
		wantIn(t, p, "Added &#34;Loopback News&#34;. The feed answered with 2 items.", "waiting for its first poll",
			`<meta http-equiv="refresh" content="5">`)

		p = b.follow(b.post(srcPath+"/poll", nil))
		wantIn(t, p, "Polled: new content fetched (HTTP 200); 2 new, 0 duplicate, 2 promoted.", "Recent polls")
		wantNotIn(t, p, `http-equiv="refresh"`)
		p = b.get(wsPath(ws.ID, "/sources"))
		wantIn(t, p, "Loopback News", "healthy", "2 new · 0 duplicate · 2 promoted", "Tech/Go")

		p = b.follow(b.post(srcPath+"/pause", nil))
		wantIn(t, p, "Paused: the scheduler no longer polls it.", `action="`+srcPath+`/resume"`)
		if p := b.get(wsPath(ws.ID, "/sources?status=active")); strings.Contains(p.Body, "Loopback News") {
			t.Error("a paused source is listed as active")
		}
		wantIn(t, b.get(wsPath(ws.ID, "/sources?status=paused&category=Tech%2FGo")), "Loopback News")
		wantIn(t, b.follow(b.post(srcPath+"/resume", nil)), "Resumed")

		p = b.get(srcPath + "/delete")
		wantIn(t, p, "Delete this source?", "its articles and content items are kept")
		p = b.follow(b.post(srcPath+"/delete", nil))
		wantIn(t, p, "Deleted &#34;Loopback News&#34;")
		if srcs, _ := e.svc.ListSources(context.Background(), ws.ID); len(srcs) != 0 {
			t.Fatalf("%d sources after delete", len(srcs))
		}
		if p := b.get(srcPath); p.Status != http.StatusNotFound {
			t.Errorf("a deleted source's page: %d", p.Status)
		}
	})
}

// TestReadOnlyTokenSeesNoWriteControls: a read-only token's pages have
// no form but signing out, and a forged form (with a valid CSRF token)
// is refused with 403 and changes nothing.
func TestReadOnlyTokenSeesNoWriteControls(t *testing.T) {
	site := newsSite(t)
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.workspace("news")
		if _, err := e.svc.CreateSource(context.Background(), ws.ID, serviceSpec(site.URL+"/feed.xml")); err != nil {
			t.Fatal(err)
		}
		srcs, _ := e.svc.ListSources(context.Background(), ws.ID)
		secret, _ := e.token(&ws.ID, true)
		b := e.browser()
		b.signIn(secret)
		for _, path := range []string{"/sources", fmt.Sprintf("/sources/%d", srcs[0].ID), "/opml", "/webhooks", "/tokens", "/digest", "/search", "/items", "/activity"} {
			p := b.get(wsPath(ws.ID, path))
			wantStatus(t, p, http.StatusOK)
			if n := strings.Count(p.Body, `method="post"`); n != 1 {
				t.Errorf("%s: %d forms that post, want only sign-out", path, n)
			}
			wantNotIn(t, p, "Add a source", "Poll now", "Delete…", "Create the token")
		}
		for _, forged := range []struct {
			path string
			form url.Values
		}{
			{"/sources", url.Values{"url": {site.URL + "/feed.xml?other"}}},
			{fmt.Sprintf("/sources/%d/pause", srcs[0].ID), nil},
			{fmt.Sprintf("/sources/%d/delete", srcs[0].ID), nil},
			{"/webhooks", url.Values{"url": {"http://127.0.0.1:9/hook"}}},
		} {
			p := b.post(wsPath(ws.ID, forged.path), forged.form)
			wantStatus(t, p, http.StatusForbidden)
			wantIn(t, p, "This token may only read")
		}
		after, _ := e.svc.ListSources(context.Background(), ws.ID)
		if len(after) != 1 || !after[0].IsActive {
			t.Fatalf("forged forms changed the sources: %+v", after)
		}
		// Signing out is not a write.
		if p := b.post("/ui/signout", nil); p.Status != http.StatusSeeOther {
			t.Errorf("a read-only token cannot sign out: %d", p.Status)
		}
	})
}

// TestWorkspaceTokenSeesOnlyItsWorkspace: another workspace, the admin
// tokens and creating tokens are out of a workspace token's reach.
func TestWorkspaceTokenSeesOnlyItsWorkspace(t *testing.T) {
	e := newEnv(t, "sqlite")
	mine, theirs := e.workspace("mine"), e.workspace("theirs")
	secret, _ := e.token(&mine.ID, false)
	b := e.browser()
	b.signIn(secret)
	if p := b.get(wsPath(theirs.ID, "/sources")); p.Status != http.StatusNotFound {
		t.Errorf("another workspace: %d, want 404", p.Status)
	}
	if p := b.get("/ui/tokens"); p.Status != http.StatusForbidden {
		t.Errorf("the admin tokens: %d, want 403", p.Status)
	}
	b.get(wsPath(mine.ID, "/tokens"))
	if p := b.post(wsPath(mine.ID, "/tokens"), url.Values{"name": {"x"}}); p.Status != http.StatusForbidden {
		t.Errorf("creating a token: %d, want 403 (admin only, as in the API)", p.Status)
	}
}

// TestHostileTextRendersAsText: titles and summaries full of markup, from
// the hostile feed and from a title typed in, show as text on every page,
// and the article's links keep only safe destinations.
func TestHostileTextRendersAsText(t *testing.T) {
	h := hostile.New()
	t.Cleanup(h.Close)
	forEachDialect(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ws := e.workspace("markup")
		spec := serviceSpec(h.EndpointURL("markup"))
		created, err := e.svc.CreateSource(ctx, ws.ID, spec)
		if err != nil {
			t.Fatal(err)
		}
		typed := `<script>alert("typed")</script>`
		other := serviceSpec(newsSite(t).URL + "/feed.xml")
		other.Title = &typed
		if _, err := e.svc.CreateSource(ctx, ws.ID, other); err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		b.signIn(e.admin)
		srcPath := wsPath(ws.ID, fmt.Sprintf("/sources/%d", created.Source.ID))
		b.get(srcPath)
		wantIn(t, b.follow(b.post(srcPath+"/poll", nil)), "2 new")
		arts, err := e.st.ListArticles(ctx, ws.ID, model.ListFilter{})
		if err != nil || len(arts) != 2 {
			t.Fatalf("articles: %d %v", len(arts), err)
		}
		var first model.FeedArticle
		for _, a := range arts {
			if strings.Contains(a.Title, "Breaking") {
				first = a
			}
		}
		pages := []string{"/sources", srcPath[len(wsPath(ws.ID, "")):], "/digest?since=30d", "/search?q=markup", "/items",
			fmt.Sprintf("/articles/%d", first.ID), "/activity"}
		for _, path := range pages {
			p := b.get(wsPath(ws.ID, path))
			wantStatus(t, p, http.StatusOK)
			// html/template escapes < as &lt; and quotes as &#34;: no tag
			// the feed sent is a tag here.
			for _, bad := range []string{"<script>alert", "<img src=x", "<svg onload", "onerror=alert(1)>", "<iframe", "javascript:", "onclick="} {
				if strings.Contains(p.Body, bad) {
					t.Errorf("%s shows %q as markup: %s", path, bad, excerpt(p.Body))
				}
			}
		}
		wantIn(t, b.get(wsPath(ws.ID, "/sources")), "&lt;script&gt;alert(&#34;typed&#34;)&lt;/script&gt;")
		art := b.get(wsPath(ws.ID, fmt.Sprintf("/articles/%d", first.ID)))
		wantIn(t, art, "js link", // the text of the javascript: link stays, its link does not
			`href="`+h.URL()+`/a/6"`, // a relative link resolved against the article
			"tracking pixel")         // the image became a link
		wantNotIn(t, art, "<img", "tracker.invalid/pixel.gif\"><img")
	})
}

func TestActivityCharts(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ws := e.workspace("busy")
		src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://busy.example/feed", Title: "Busy <feed>", SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}
		if err := e.st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for i, outcome := range []string{model.StatusOK, model.StatusOK, model.StatusError, model.StatusNotModified} {
			if _, err := e.st.DB().ExecContext(ctx, e.st.DB().Rebind(`INSERT INTO poll_runs (feed_source_id, started_at, outcome) VALUES (?, ?, ?)`),
				src.ID, now.Add(-time.Duration(i)*time.Minute), outcome); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 3 {
			if _, err := e.st.DB().ExecContext(ctx, e.st.DB().Rebind(`INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, created_at) VALUES (?, ?, ?, ?)`),
				ws.ID, src.ID, fmt.Sprintf("https://busy.example/%d", i), now.Add(-time.Duration(i)*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		b := e.browser()
		b.signIn(e.admin)
		for _, rng := range []string{"week", "month"} {
			p := b.get(wsPath(ws.ID, "/activity?range="+rng))
			wantStatus(t, p, http.StatusOK)
			wantIn(t, p, `<svg viewBox="0 0 760 240" role="img"`, `class="o-ok"`, `class="o-err"`, `class="s0"`,
				"new content: 2", "failed: 1", "not modified: 1", "Busy &lt;feed&gt;: 3", "last "+rng)
			// A bar per outcome and hour, and one for the source's day
			// (or two, when the three hours crossed midnight).
			if n := strings.Count(p.Body, "<rect "); n < 4 || n > 5 {
				t.Errorf("%s: %d bars, want 4 or 5", rng, n)
			}
		}
	})
}

func TestDigestCitesArticles(t *testing.T) {
	site := newsSite(t)
	forEachDialect(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ws := e.workspace("news")
		created, err := e.svc.CreateSource(ctx, ws.ID, serviceSpec(site.URL+"/feed.xml"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.PollSource(ctx, ws.ID, created.Source.ID); err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		b.signIn(e.admin)
		p := b.get(wsPath(ws.ID, "/digest?since=7d"))
		wantStatus(t, p, http.StatusOK)
		wantIn(t, p, "Golang release ships", "[1]", "original")
		m := regexp.MustCompile(`href="(/ui/w/\d+/articles/\d+)"`).FindStringSubmatch(p.Body)
		if m == nil {
			t.Fatalf("no citation links to an article: %s", excerpt(p.Body))
		}
		art := b.get(m[1])
		wantStatus(t, art, http.StatusOK)
		wantIn(t, art, "Read the original", "Relevance")

		p = b.get(wsPath(ws.ID, "/digest?since=yesterday-ish"))
		wantStatus(t, p, http.StatusBadRequest)
		wantIn(t, p, "since")
		p = b.get(wsPath(ws.ID, "/search?q=golang"))
		wantIn(t, p, "2 articles found", "<mark>")
		p = b.get(wsPath(ws.ID, "/search?q=-golang"))
		wantStatus(t, p, http.StatusBadRequest)
		wantIn(t, p, "only excludes terms")
		p = b.get(wsPath(ws.ID, "/items?min_score=0"))
		wantIn(t, p, "Golang release ships", "Matched terms")
		if p := b.get(wsPath(ws.ID, "/items?min_score=lots")); p.Status != http.StatusBadRequest {
			t.Errorf("a bad least score: %d", p.Status)
		}
	})
}

func TestOPMLImportReportsEachOutline(t *testing.T) {
	site := newsSite(t)
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.workspace("import")
		b := e.browser()
		b.signIn(e.admin)
		b.get(wsPath(ws.ID, "/opml"))
		doc := fmt.Sprintf(`<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body>
<outline text="Good" xmlUrl="%s/feed.xml"/>
<outline text="Not a feed" xmlUrl="%s/page"/>
</body></opml>`, site.URL, site.URL)
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("csrf", b.csrf)
		fw, _ := mw.CreateFormFile("file", "subs.opml")
		_, _ = fw.Write([]byte(doc))
		_ = mw.Close()
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+wsPath(ws.ID, "/opml"), &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		p := b.do(req)
		wantStatus(t, p, http.StatusOK)
		wantIn(t, p, "1 added, 0 already there, 1 rejected", "Good", "not a feed: got an HTML page")
		exp := b.get(wsPath(ws.ID, "/sources.opml"))
		if exp.Status != http.StatusOK || !strings.Contains(exp.Body, site.URL+"/feed.xml") {
			t.Errorf("export: %d %s", exp.Status, exp.Body)
		}
	})
}

func TestTokensAndWebhooks(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.workspace("hooks")
		b := e.browser()
		b.signIn(e.admin)
		b.get(wsPath(ws.ID, "/tokens"))
		p := b.post(wsPath(ws.ID, "/tokens"), url.Values{"name": {"reader"}, "read_only": {"1"}})
		wantStatus(t, p, http.StatusCreated)
		m := regexp.MustCompile(`id="secret" readonly value="([^"]+)"`).FindStringSubmatch(p.Body)
		if m == nil {
			t.Fatalf("no secret shown: %s", excerpt(p.Body))
		}
		wantIn(t, p, "(read-only)", "cannot be shown again")
		list := b.get(wsPath(ws.ID, "/tokens"))
		wantNotIn(t, list, m[1])
		wantIn(t, list, "reader", "read-only")
		// The new token signs in, read-only.
		if p := e.browser().signIn(m[1]); p.Status != http.StatusSeeOther {
			t.Errorf("the new token cannot sign in: %d", p.Status)
		}
		toks, _ := e.svc.ListTokens(context.Background(), ws.ID)
		p = b.follow(b.post(wsPath(ws.ID, fmt.Sprintf("/tokens/%d/revoke", toks[0].ID)), nil))
		wantIn(t, p, "revoked")

		b.get(wsPath(ws.ID, "/webhooks"))
		p = b.post(wsPath(ws.ID, "/webhooks"), url.Values{"url": {"not a url"}})
		wantStatus(t, p, http.StatusBadRequest)
		wantIn(t, p, `id="hook-url-error"`)
		p = b.post(wsPath(ws.ID, "/webhooks"), url.Values{"url": {"http://127.0.0.1:9/hook"}})
		wantStatus(t, p, http.StatusCreated)
		wantIn(t, p, "Signing secret", "http://127.0.0.1:9/hook", "enabled")
		hooks, _ := e.svc.ListWebhooks(context.Background(), ws.ID)
		p = b.follow(b.post(wsPath(ws.ID, fmt.Sprintf("/webhooks/%d/disable", hooks[0].ID)), nil))
		wantIn(t, p, "Webhook turned off", ">off<")
		wantIn(t, b.get(wsPath(ws.ID, fmt.Sprintf("/webhooks/%d", hooks[0].ID))), "Nothing delivered yet")

		// The admin tokens page keeps the last admin credential only when
		// none is configured; here one is, so a stored one may go.
		b.get("/ui/tokens")
		p = b.post("/ui/tokens", url.Values{"name": {"second admin"}})
		wantStatus(t, p, http.StatusCreated)
	})
}
