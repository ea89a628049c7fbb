package console_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/console"
	"github.com/feedpoller/feedpoller/internal/servicetest"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// env is a console over a real store and service, served by httptest.
type env struct {
	t     *testing.T
	st    *store.Store
	svc   *service.Service
	srv   *httptest.Server
	admin string
}

const adminToken = "console-test-admin-token"

func forEachDialect(t *testing.T, f func(t *testing.T, e *env)) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) { f(t, newEnv(t, d)) })
	}
}

func newEnv(t *testing.T, dialect string) *env {
	st := testdb.Store(t, dialect)
	svc := servicetest.Service(t, st, servicetest.Poller(t, st, nil))
	c, err := console.New(console.Options{Store: st, Service: svc, AdminToken: adminToken, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, st: st, svc: svc, srv: srv, admin: adminToken}
}

// browser is one signed-in (or not) visitor with its cookies.
type browser struct {
	e    *env
	c    *http.Client
	csrf string
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// page is an answer: its status, where it redirects, and its body.
type page struct {
	Status   int
	Location string
	Body     string
	Header   http.Header
}

func (b *browser) do(req *http.Request) page {
	b.e.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	p := page{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(raw), Header: resp.Header}
	if m := csrfField.FindStringSubmatch(p.Body); m != nil {
		b.csrf = html.UnescapeString(m[1])
	}
	return p
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) get(path string) page {
	b.e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.e.srv.URL+path, nil)
	return b.do(req)
}

// post sends a form with the page's CSRF token (unless form sets csrf).
func (b *browser) post(path string, form url.Values) page {
	b.e.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, set := form["csrf"]; !set {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest(http.MethodPost, b.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// follow GETs where p redirects.
func (b *browser) follow(p page) page {
	b.e.t.Helper()
	if p.Location == "" {
		b.e.t.Fatalf("no redirect: %d %s", p.Status, excerpt(p.Body))
	}
	return b.get(p.Location)
}

// signIn signs in with token and returns the page it lands on.
func (b *browser) signIn(token string) page {
	b.e.t.Helper()
	b.get("/ui/signin")
	p := b.post("/ui/signin", url.Values{"token": {token}})
	if p.Status != http.StatusSeeOther {
		b.e.t.Fatalf("sign in: %d %s", p.Status, excerpt(p.Body))
	}
	return b.follow(p)
}

func excerpt(s string) string {
	if i := strings.Index(s, `<main`); i >= 0 {
		s = s[i:]
	}
	if len(s) > 1500 {
		s = s[:1500] + "…"
	}
	return s
}

func (e *env) workspace(name string) *model.Workspace {
	e.t.Helper()
	ws, err := e.svc.CreateWorkspace(context.Background(), service.WorkspaceSpec{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return ws
}

// token makes a token of a workspace (nil: admin) and returns its secret.
func (e *env) token(ws *int64, readOnly bool) (string, int64) {
	e.t.Helper()
	c, err := e.svc.CreateToken(context.Background(), ws, service.TokenSpec{Name: "test", ReadOnly: readOnly})
	if err != nil {
		e.t.Fatal(err)
	}
	return c.Secret, c.Token.ID
}

func wsPath(id int64, rest string) string { return fmt.Sprintf("/ui/w/%d%s", id, rest) }

func wantStatus(t *testing.T, p page, status int) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d: %s", p.Status, status, excerpt(p.Body))
	}
}

func wantIn(t *testing.T, p page, parts ...string) {
	t.Helper()
	for _, s := range parts {
		if !strings.Contains(p.Body, s) {
			t.Errorf("the page lacks %q: %s", s, excerpt(p.Body))
		}
	}
}

func wantNotIn(t *testing.T, p page, parts ...string) {
	t.Helper()
	for _, s := range parts {
		if strings.Contains(p.Body, s) {
			t.Errorf("the page has %q: %s", s, excerpt(p.Body))
		}
	}
}

func serviceSpec(u string) service.SourceSpec { return service.SourceSpec{URL: u} }
