package firecrawltest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

func post(t *testing.T, u, auth, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decode(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

// TestPipelineOrder checks which error wins when several apply.
func TestPipelineOrder(t *testing.T) {
	cases := []struct {
		name       string
		cfg        firecrawltest.Config
		auth, body string
		status     int
		code, msg  string
	}{
		{"malformed JSON before auth", firecrawltest.Config{}, "", `{"url":`, 400, "BAD_REQUEST_INVALID_JSON", "Bad request, malformed JSON"},
		{"no header", firecrawltest.Config{}, "", `{"url":"https://example.com"}`, 401, "", "Unauthorized"},
		{"token missing", firecrawltest.Config{}, "Bearer", `{"url":"https://example.com"}`, 401, "", "Unauthorized: Token missing"},
		{"bad key beats bad body", firecrawltest.Config{}, "Bearer nope", `{"bogus":1}`, 401, "", "Unauthorized: Invalid token"},
		{"credits before blocklist", firecrawltest.Config{Credits: 0, Blocklist: []string{"example.com"}}, "Bearer " + testKey, `{"url":"https://example.com"}`, 402, "", ""},
		{"blocklist before validation", firecrawltest.Config{Blocklist: []string{"example.com"}}, "Bearer " + testKey, `{"url":"https://www.example.com","bogus":1}`, 403, "", ""},
		{"unknown key", firecrawltest.Config{}, "Bearer " + testKey, `{"url":"https://example.com","bogus":1}`, 400, "BAD_REQUEST", "Bad Request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.APIKey = testKey
			if cfg.Credits == 0 && tc.status != 402 {
				cfg.Credits = firecrawltest.Unlimited
			}
			s := firecrawltest.New(t, cfg)
			resp := post(t, s.URL+"/v1/scrape", tc.auth, tc.body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			m := decode(t, resp)
			if m["success"] != false {
				t.Errorf("success = %v", m["success"])
			}
			if tc.code != "" && m["code"] != tc.code {
				t.Errorf("code = %v, want %s", m["code"], tc.code)
			}
			if tc.msg != "" && m["error"] != tc.msg {
				t.Errorf("error = %v, want %s", m["error"], tc.msg)
			}
		})
	}
}

func TestValidationDetails(t *testing.T) {
	cases := []struct {
		body      string
		issueCode string
		message   string
	}{
		{`{"url":"https://example.com","bogus":1}`, "unrecognized_keys", "Unrecognized key(s) in object: 'bogus'"},
		{`{"url":"http://localhost:8080/x"}`, "custom", "URL must have a valid top-level domain or be a valid path"},
		{`{"url":"http://127.0.0.1/"}`, "custom", "URL must have a valid top-level domain or be a valid path"},
		{`{"formats":["html"]}`, "custom", "URL must have a valid top-level domain or be a valid path"},
		{`{"url":"ftp://example.com/x"}`, "custom", "URL uses unsupported protocol"},
		{`{"url":"ftp://example.com/x"}`, "custom", "Invalid URL"},
		{`{"url":"http://ex ample.com/"}`, "invalid_string", "Invalid url"},
		{`{"url":"https://example.com","formats":["pdf"]}`, "invalid_enum_value", ""},
		{`{"url":"https://example.com","formats":["changeTracking"]}`, "custom", "The changeTracking format requires the markdown format to be specified as well"},
		{`{"url":"https://example.com","waitFor":60001}`, "too_big", "Number must be less than or equal to 60000"},
		{`{"url":"https://example.com","waitFor":3000,"timeout":5000}`, "custom", "waitFor must not exceed half of timeout"},
		{`{"url":"https://example.com","timeout":0}`, "too_small", "Number must be greater than 0"},
		{`{"url":"https://example.com","timeout":"5"}`, "invalid_type", "Expected number, received string"},
	}
	s := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited})
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			resp := post(t, s.URL+"/v1/scrape", "Bearer x", tc.body)
			if resp.StatusCode != 400 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			m := decode(t, resp)
			details, _ := m["details"].([]any)
			found := false
			for _, d := range details {
				d := d.(map[string]any)
				if d["code"] == tc.issueCode && (tc.message == "" || d["message"] == tc.message) {
					found = true
				}
			}
			if !found {
				t.Errorf("details %v lack %s %q", details, tc.issueCode, tc.message)
			}
		})
	}
}

func TestRecordsRequests(t *testing.T) {
	s := newFake(t, firecrawltest.Config{})
	if _, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams()); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/scrape" || r.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("request %s %s auth %q", r.Method, r.Path, r.Header.Get("Authorization"))
	}
	if len(r.Body) != 3 || r.Body["url"] != target || r.Body["timeout"] != float64(30000) {
		t.Errorf("body = %v", r.Body)
	}
	if f, _ := r.Body["formats"].([]any); len(f) != 1 || f[0] != "html" {
		t.Errorf("formats = %v", r.Body["formats"])
	}
}

func TestCreditsAreSpentPerSuccess(t *testing.T) {
	s := newFake(t, firecrawltest.Config{Credits: 2})
	app := sdk(t, s.URL, testKey)
	for i := 0; i < 2; i++ {
		if _, err := app.ScrapeURL(target, htmlParams()); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if s.Credits() != 0 {
		t.Fatalf("credits = %d", s.Credits())
	}
	if _, err := app.ScrapeURL(target, htmlParams()); err == nil || !strings.HasPrefix(err.Error(), "Payment Required") {
		t.Fatalf("third call: %v", err)
	}
}

func TestUnknownRouteIsExpress404(t *testing.T) {
	s := newFake(t, firecrawltest.Config{})
	resp, err := http.Get(s.URL + "/v1/scrape")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || !strings.Contains(string(b), "<pre>Cannot GET /v1/scrape</pre>") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d body %q", resp.StatusCode, b)
	}
}

func TestSuccessBodyIsFaithful(t *testing.T) {
	s := newFake(t, firecrawltest.Config{})
	s.Handle("http://example.com/cached", firecrawltest.Success(firecrawltest.Page{
		HTML: "<p>a & b</p>", Links: []string{"https://example.com/x"}, Warning: "partial",
		CacheState: "hit", CachedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Metadata: map[string]any{"title": "T"},
	}))
	resp := post(t, s.URL+"/v1/scrape", "Bearer "+testKey,
		`{"url":"example.com/cached","formats":["html","markdown","rawHtml","links"],"maxAge":1000}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	raw, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(raw), `"html":"<p>a & b</p>"`) {
		t.Errorf("html must be encoded as JSON.stringify does (no \\u003c): %s", raw)
	}
	var m struct {
		Success bool
		Data    struct {
			HTML, Markdown, RawHTML, Warning string
			Links                            []string
			Metadata                         map[string]any
		}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	md := m.Data.Metadata
	if !m.Success || m.Data.Markdown != "a & b" || m.Data.RawHTML != "<p>a & b</p>" || len(m.Data.Links) != 1 || m.Data.Warning != "partial" {
		t.Errorf("data = %+v", m.Data)
	}
	if md["sourceURL"] != "example.com/cached" || md["url"] != "http://example.com/cached" || md["statusCode"] != float64(200) ||
		md["cacheState"] != "hit" || md["cachedAt"] != "2026-01-02T03:04:05.000Z" || md["proxyUsed"] != "basic" || md["scrapeId"] == "" {
		t.Errorf("metadata = %v", md)
	}
}

// TestCloseReleasesStalledHandlers: a stalled fake must not hang the test
// that owns it.
func TestCloseReleasesStalledHandlers(t *testing.T) {
	s := firecrawltest.NewServer(firecrawltest.Config{Credits: firecrawltest.Unlimited})
	s.Handle("example.com", firecrawltest.Success(articlePage))
	s.Enqueue(firecrawltest.SlowBody())
	errc := make(chan error, 1)
	go func() {
		_, err := sdk(t, s.URL, testKey).ScrapeURL(target, htmlParams())
		errc <- err
	}()
	for len(s.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung on a stalled handler")
	}
	if err := <-errc; err == nil {
		t.Fatal("a stalled body must end in an error")
	}
}
