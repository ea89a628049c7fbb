package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestSignInAndOut: a wrong token is refused with the reason; the right
// one starts a session whose cookie is HttpOnly, SameSite and limited to
// the console; signing out ends it in the database too, so the cookie no
// longer works.
func TestSignInAndOut(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		b := e.browser()
		if p := b.get("/ui/"); p.Status != http.StatusSeeOther || p.Location != "/ui/signin" {
			t.Fatalf("signed out: %d → %q, want the sign-in page", p.Status, p.Location)
		}
		p := b.get("/ui/signin")
		wantStatus(t, p, http.StatusOK)
		wantIn(t, p, `<label for="token">API token</label>`)
		p = b.post("/ui/signin", url.Values{"token": {"not-a-token"}})
		wantStatus(t, p, http.StatusUnauthorized)
		wantIn(t, p, "This token is not valid")

		p = b.post("/ui/signin", url.Values{"token": {e.admin}})
		wantStatus(t, p, http.StatusSeeOther)
		var sess *http.Cookie
		for _, ck := range (&http.Response{Header: p.Header}).Cookies() {
			if ck.Name == "feedpoller_session" && ck.Value != "" {
				sess = ck
			}
		}
		if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/ui/" || sess.Secure {
			t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Lax, Path=/ui/, not Secure over plain HTTP", sess)
		}
		var stored string
		if err := e.st.DB().GetContext(context.Background(), &stored, `SELECT id_hash FROM console_sessions`); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stored, sess.Value) || len(stored) != 64 {
			t.Errorf("the database holds %q for cookie %q: want only its hash", stored, sess.Value)
		}
		p = b.follow(p)
		wantStatus(t, p, http.StatusOK)
		wantIn(t, p, "Workspaces", "configured admin token", "Sign out")

		p = b.post("/ui/signout", nil)
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/ui/signin") {
			t.Fatalf("sign out: %d %q", p.Status, p.Location)
		}
		var n int
		if err := e.st.DB().GetContext(context.Background(), &n, `SELECT COUNT(*) FROM console_sessions`); err != nil || n != 0 {
			t.Fatalf("%d sessions left after signing out (%v)", n, err)
		}
		// The old cookie, replayed, is no session.
		replay := e.browser()
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/ui/", nil)
		req.AddCookie(&http.Cookie{Name: "feedpoller_session", Value: sess.Value})
		if p := replay.do(req); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/ui/signin") {
			t.Fatalf("replayed cookie after sign-out: %d %q", p.Status, p.Location)
		}
	})
}

// TestSecureCookieBehindTLS: a request that came over TLS (here through
// a proxy saying so) gets a Secure cookie.
func TestSecureCookieBehindTLS(t *testing.T) {
	e := newEnv(t, "sqlite")
	b := e.browser()
	b.get("/ui/signin")
	form := url.Values{"token": {e.admin}, "csrf": {b.csrf}}
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/ui/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https")
	p := b.do(req)
	for _, ck := range (&http.Response{Header: p.Header}).Cookies() {
		if ck.Name == "feedpoller_session" && !ck.Secure {
			t.Fatalf("session cookie over TLS is not Secure: %+v", ck)
		}
	}
}

// TestPagesCarrySecurityHeaders: every page forbids inline script,
// framing and caching.
func TestPagesCarrySecurityHeaders(t *testing.T) {
	e := newEnv(t, "sqlite")
	b := e.browser()
	for _, path := range []string{"/ui/signin", "/ui/", "/ui/nowhere"} {
		p := b.get(path)
		h := p.Header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			!strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
	b.signIn(e.admin)
	p := b.get("/ui/static/console.css")
	if p.Status != http.StatusOK || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d %q", p.Status, p.Header.Get("Content-Type"))
	}
	if p := b.get("/ui/static/nothing.css"); p.Status != http.StatusNotFound {
		t.Errorf("a missing static file: %d", p.Status)
	}
	// No page of the console has inline script or style.
	for _, path := range []string{"/ui/", "/ui/signin", "/ui/tokens"} {
		p := b.get(path)
		if strings.Contains(p.Body, "<script>") || strings.Contains(p.Body, "style=") || strings.Contains(p.Body, "<style") {
			t.Errorf("%s has inline script or style", path)
		}
	}
}

// TestFormsNeedTheirCSRFToken: a form without the session's token, or
// posted from another origin, changes nothing.
func TestFormsNeedTheirCSRFToken(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(e.admin)
		p := b.post("/ui/workspaces", url.Values{"name": {"forged"}, "csrf": {"wrong"}})
		wantStatus(t, p, http.StatusForbidden)
		wantIn(t, p, "CSRF")
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/ui/workspaces",
			strings.NewReader(url.Values{"name": {"cross-site"}, "csrf": {b.csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		wantStatus(t, b.do(req), http.StatusForbidden)
		if wss, _ := e.svc.ListWorkspaces(context.Background()); len(wss) != 0 {
			t.Fatalf("a refused form created %d workspaces", len(wss))
		}
		// The sign-in form has its own token.
		other := e.browser()
		p = other.post("/ui/signin", url.Values{"token": {e.admin}, "csrf": {"guess"}})
		wantStatus(t, p, http.StatusForbidden)
		// With the token, the same form works.
		p = b.post("/ui/workspaces", url.Values{"name": {"real"}})
		wantStatus(t, p, http.StatusSeeOther)
	})
}

// TestRevokedTokenEndsItsSession: revoking the token a session acts as
// ends the session at its next request.
func TestRevokedTokenEndsItsSession(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.workspace("news")
		secret, id := e.token(&ws.ID, false)
		b := e.browser()
		p := b.signIn(secret)
		if p.Status != http.StatusSeeOther || p.Location != wsPath(ws.ID, "/sources") {
			t.Fatalf("a workspace token lands on %d %q, want its sources", p.Status, p.Location)
		}
		wantStatus(t, b.get(wsPath(ws.ID, "/sources")), http.StatusOK)
		if err := e.svc.RevokeToken(context.Background(), ws.ID, id, true); err != nil {
			t.Fatal(err)
		}
		p = b.get(wsPath(ws.ID, "/sources"))
		if p.Status != http.StatusSeeOther || p.Location != "/ui/signin?m=expired" {
			t.Fatalf("after revocation: %d %q, want the sign-in page saying why", p.Status, p.Location)
		}
		wantIn(t, b.get(p.Location), "its token was revoked")
	})
}
