package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/api"
	"github.com/feedpoller/feedpoller/internal/logbuf"
	"github.com/feedpoller/feedpoller/internal/servicetest"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/store"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// env is one running API server over loopback, on a fresh database, with a
// loopback site to validate sources against.
type env struct {
	t      testing.TB
	store  *store.Store
	srv    *httptest.Server
	site   *httptest.Server
	admin  string
	poller *recordingPoller
	logs   *syncBuffer
}

// apiOptions is what a test may set before the server is built: the
// API's own options and the source service's dependencies.
type apiOptions struct {
	api.Options
	Store     *store.Store
	Validator service.Validator
	Poller    service.Poller
	// Policy checks webhook URLs: by default loopback's 127.0.0.1 is
	// allowed (the tests' receivers), every other internal address not.
	Policy service.AddressPolicy
}

type envOption func(*apiOptions)

func withoutPoller() envOption { return func(o *apiOptions) { o.Poller = nil } }

// newAPI builds the server as the daemon does: a source service with the
// default options over the store, validator and poller, and the API over
// the service.
func newAPI(o apiOptions) (*api.Server, error) {
	so := service.DefaultOptions()
	so.Store, so.Validator, so.Poller, so.Digests = o.Store, o.Validator, o.Poller, o.Store
	so.Webhooks, so.AddressPolicy, so.ImportHostGap, so.APITokens = o.Store, o.Policy, -1, o.Store
	if so.AddressPolicy == nil {
		p, err := fetch.NewPolicy(fetch.Options{Allow: []string{"127.0.0.1"}, Resolver: namesResolver{},
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nil, err
		}
		so.AddressPolicy = p
	}
	svc, err := service.New(so)
	if err != nil {
		return nil, err
	}
	o.Options.Store, o.Options.Service = o.Store, svc
	return api.New(o.Options)
}

func openStore(t testing.TB, dialect string) *store.Store { return testdb.Store(t, dialect) }

func newEnv(t testing.TB, dialect string, opts ...envOption) *env {
	t.Helper()
	e := &env{t: t, store: openStore(t, dialect), logs: &syncBuffer{}}
	e.admin = "admin-" + strings.Repeat("x", 8) + "-" + t.Name()
	e.site = httptest.NewServer(siteHandler())
	t.Cleanup(e.site.Close)
	e.poller = &recordingPoller{store: e.store}
	o := apiOptions{
		Store:     e.store,
		Validator: servicetest.NewValidator(),
		Poller:    e.poller,
		Options: api.Options{
			AdminToken: e.admin,
			Log:        slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		},
	}
	for _, f := range opts {
		f(&o)
	}
	srv, err := newAPI(o)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = newTestServer(t, srv.Handler())
	return e
}

func newTestServer(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// forEachDialect runs f on SQLite and on Postgres.
func forEachDialect(t *testing.T, f func(t *testing.T, e *env), opts ...envOption) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) { f(t, newEnv(t, d, opts...)) })
	}
}

// call is one HTTP request to the server under test.
type call struct {
	method, path, token string
	// body: nil sends none; string or []byte is sent as is; anything else
	// is JSON-encoded.
	body        any
	contentType string // default application/json when there is a body; "-" sends none
	// offSpec marks requests the OpenAPI document does not describe on
	// purpose (unknown paths and methods); every other response is
	// validated against it.
	offSpec bool
	// serverError marks a request meant to make the server fail (5xx).
	serverError bool
}

type result struct {
	status int
	header http.Header
	body   []byte
}

func (e *env) call(c call) *result {
	e.t.Helper()
	var rd io.Reader
	switch b := c.body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(c.method, e.srv.URL+c.path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if c.body != nil && c.contentType != "-" {
		ct := c.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("%s %s: read body: %v", c.method, c.path, err)
	}
	if !c.offSpec {
		checkAgainstSpec(e.t, req, resp, body)
	}
	if resp.StatusCode >= 500 && resp.StatusCode != http.StatusServiceUnavailable && !c.serverError {
		e.t.Errorf("%s %s answered %d: %s", c.method, c.path, resp.StatusCode, body)
	}
	return &result{status: resp.StatusCode, header: resp.Header, body: body}
}

// do sends an admin-or-given-token request with an optional JSON body.
func (e *env) do(method, path, token string, body any) *result {
	e.t.Helper()
	return e.call(call{method: method, path: path, token: token, body: body})
}

func (r *result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

type errorBody struct {
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields"`
}

func (r *result) errBody(t testing.TB) errorBody {
	t.Helper()
	var e errorBody
	r.decode(t, &e)
	if e.Error == "" {
		t.Fatalf("error answer without a message: %s", r.body)
	}
	return e
}

// want fails the test unless the answer has the status.
func (r *result) want(t *testing.T, status int) *result {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	return r
}

const wsPath = "/api/intelligence/workspaces"

func path(format string, args ...any) string { return wsPath + fmt.Sprintf(format, args...) }

// workspaceJSON mirrors the API's workspace answer.
type workspaceJSON struct {
	ID               int64                  `json:"id"`
	Name             string                 `json:"name"`
	RelevanceProfile model.RelevanceProfile `json:"relevance_profile"`
}

// sourceJSON mirrors the API's source answers.
type sourceJSON struct {
	ID                     int64     `json:"id"`
	WorkspaceID            int64     `json:"workspace_id"`
	URL                    string    `json:"url"`
	SourceType             string    `json:"source_type"`
	Title                  string    `json:"title"`
	IsActive               bool      `json:"is_active"`
	PollingIntervalMinutes int       `json:"polling_interval_minutes"`
	TrackChanges           bool      `json:"track_changes"`
	ConsecutiveFailures    int       `json:"consecutive_failures"`
	LastPolledStatus       string    `json:"last_polled_status"`
	LastPolledError        string    `json:"last_polled_error"`
	NextPollAt             time.Time `json:"next_poll_at"`
	Due                    bool      `json:"due"`
	FeedTitle              *string   `json:"feed_title"`
	InitialArticleCount    *int      `json:"initial_article_count"`
	SiteURL                string    `json:"site_url"`
	PageTitle              *string   `json:"page_title"`
	FeedLinks              []string  `json:"feed_links"`
	Hint                   string    `json:"hint"`
	RecentPolls            []struct {
		Outcome string `json:"outcome"`
	} `json:"recent_polls"`
}

// createWorkspace makes a workspace through the API.
func (e *env) createWorkspace(t *testing.T, name string) workspaceJSON {
	t.Helper()
	var ws workspaceJSON
	e.do("POST", wsPath, e.admin, map[string]any{"name": name}).want(t, http.StatusCreated).decode(t, &ws)
	return ws
}

// createSource makes a source through the API (the body is sent as is).
func (e *env) createSource(t *testing.T, wsID int64, body map[string]any) sourceJSON {
	t.Helper()
	var src sourceJSON
	e.do("POST", path("/%d/sources", wsID), e.admin, body).want(t, http.StatusCreated).decode(t, &src)
	return src
}

// workspaceToken creates a token for the workspace and returns its secret.
func (e *env) workspaceToken(t *testing.T, wsID int64) string {
	t.Helper()
	var tok struct {
		Token string `json:"token"`
	}
	e.do("POST", path("/%d/tokens", wsID), e.admin, map[string]any{"name": "ci"}).want(t, http.StatusCreated).decode(t, &tok)
	return tok.Token
}

// countRows counts a table's rows, to prove a refused request wrote none.
func (e *env) countRows(t testing.TB, table string) int {
	t.Helper()
	var n int
	if err := e.store.DB().Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
		t.Fatal(err)
	}
	return n
}

// syncBuffer collects log output from concurrent handlers.
type syncBuffer = logbuf.Buffer

// siteHandler is the loopback web the validators fetch.
func siteHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Loopback News</title>
<link>http://example.test/</link><description>d</description>
<item><title>One</title><link>http://example.test/1</link><guid>1</guid></item>
<item><title>Two</title><link>http://example.test/2</link><guid>2</guid></item>
<item><title>Three</title><link>http://example.test/3</link><guid>3</guid></item>
</channel></rss>`)
	})
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html><head><title>Loopback Page</title>
<link rel="alternate" type="application/rss+xml" title="News" href="/feed.xml"></head>
<body><h1>Loopback Page</h1><p>Some words about the page.</p></body></html>`)
	})
	mux.HandleFunc("/plain.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Plain</title></head><body><p>No feeds here.</p></body></html>`)
	})
	mux.HandleFunc("/doc.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, "%PDF-1.4 not a page")
	})
	mux.HandleFunc("/not-a-feed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello, I am not a feed")
	})
	mux.HandleFunc("/", http.NotFound)
	return mux
}

// namesResolver answers without a network: names under .internal.example
// resolve to a private address, every other name to a public one.
type namesResolver struct{}

func (namesResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if strings.HasSuffix(host, ".internal.example") {
		return []net.IPAddr{{IP: net.ParseIP("10.0.0.5")}}, nil
	}
	return []net.IPAddr{{IP: net.ParseIP("93.184.216.34")}}, nil
}

// recordingPoller stands in for the real poller: it claims the source
// through the store, as the real one does (so a held lease answers
// ErrLeased), records the call, releases the source, and answers a fixed
// outcome.
type recordingPoller struct {
	store *store.Store
	mu    sync.Mutex
	calls [][2]int64
}

func (p *recordingPoller) PollNow(ctx context.Context, workspaceID, sourceID int64) (model.PollOutcome, error) {
	if _, err := p.store.ClaimSource(ctx, workspaceID, sourceID, "api-test", time.Minute); err != nil {
		return model.PollOutcome{}, err
	}
	p.mu.Lock()
	p.calls = append(p.calls, [2]int64{workspaceID, sourceID})
	p.mu.Unlock()
	if err := p.store.ReleaseLeases(ctx, "api-test", []int64{sourceID}); err != nil {
		return model.PollOutcome{}, err
	}
	return model.PollOutcome{SourceID: sourceID, SourceType: model.SourceRSS, Status: model.StatusOK, HTTPStatus: 200, ItemsSeen: 3, ItemsNew: 2, ItemsDuplicate: 1, DurationMS: 5}, nil
}

func (p *recordingPoller) Calls() [][2]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][2]int64(nil), p.calls...)
}
