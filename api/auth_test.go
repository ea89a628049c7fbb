package api_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/api"
	"github.com/feedpoller/feedpoller/auth"
)

func TestUnauthenticatedRequestsGet401(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "locked")
		for _, c := range []struct{ name, header string }{
			{"no header", ""},
			{"wrong token", "Bearer not-a-token"},
			{"basic scheme", "Basic " + e.admin},
			{"empty bearer", "Bearer "},
			{"oversized token", "Bearer " + strings.Repeat("a", 10000)},
		} {
			for _, p := range []struct{ method, path string }{
				{"GET", wsPath}, {"POST", wsPath}, {"GET", path("/%d", ws.ID)}, {"GET", path("/%d/sources", ws.ID)},
				{"POST", path("/%d/sources/1/poll", ws.ID)}, {"GET", path("/%d/articles", ws.ID)},
				{"GET", path("/%d/content-items/1", ws.ID)}, {"DELETE", path("/%d/tokens/1", ws.ID)},
			} {
				req, _ := http.NewRequest(p.method, e.srv.URL+p.path, nil)
				if c.header != "" {
					req.Header.Set("Authorization", c.header)
				}
				resp, err := e.srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s: %s %s answered %d, want 401", c.name, p.method, p.path, resp.StatusCode)
				}
			}
		}
		// Through the spec-checked client too, so the 401 body is held to the document.
		r := e.do("GET", path("/%d/sources", ws.ID), "", nil).want(t, http.StatusUnauthorized)
		if r.errBody(t).Error != "missing or invalid bearer token" {
			t.Fatalf("401 body %s", r.body)
		}
		// Unknown API paths ask for a token before saying anything else.
		e.call(call{method: "GET", path: "/api/intelligence/nothing-here", offSpec: true}).want(t, http.StatusUnauthorized)
	})
}

// A workspace token acts only inside its workspace: every id of another
// workspace answers 404, exactly like an id that does not exist, and
// nothing of the other workspace changes.
func TestWorkspaceTokenIsolation(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		mine := e.createWorkspace(t, "mine")
		theirs := e.createWorkspace(t, "theirs")
		mySrc := e.createSource(t, mine.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
		theirSrc := e.createSource(t, theirs.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
		e.seedArticles(t, theirs.ID, theirSrc.ID, 2, "secret")
		tok := e.workspaceToken(t, mine.ID)
		theirTok := e.workspaceToken(t, theirs.ID)
		var theirTokID int64
		{
			var list struct{ Items []struct{ ID int64 } }
			e.do("GET", path("/%d/tokens", theirs.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &list)
			theirTokID = list.Items[0].ID
		}

		// Inside its own workspace the token works.
		e.do("GET", path("/%d", mine.ID), tok, nil).want(t, http.StatusOK)
		e.do("GET", path("/%d/sources/%d", mine.ID, mySrc.ID), tok, nil).want(t, http.StatusOK)
		e.do("PATCH", path("/%d/sources/%d", mine.ID, mySrc.ID), tok, map[string]any{"title": "ok"}).want(t, http.StatusOK)
		e.do("POST", path("/%d/sources/%d/poll", mine.ID, mySrc.ID), tok, nil).want(t, http.StatusOK)
		e.createSourceWith(t, tok, mine.ID, map[string]any{"url": "https://mine.test/api", "source_type": "api"})
		var list struct{ Items []workspaceJSON }
		e.do("GET", wsPath, tok, nil).want(t, http.StatusOK).decode(t, &list)
		if len(list.Items) != 1 || list.Items[0].ID != mine.ID {
			t.Fatalf("workspace token lists %+v", list.Items)
		}

		polls := len(e.poller.Calls())
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", path("/%d", theirs.ID), nil},
			{"PATCH", path("/%d", theirs.ID), map[string]any{"name": "pwned"}},
			{"GET", path("/%d/sources", theirs.ID), nil},
			{"POST", path("/%d/sources", theirs.ID), map[string]any{"url": "https://x.test/api", "source_type": "api"}},
			{"GET", path("/%d/sources/%d", theirs.ID, theirSrc.ID), nil},
			{"PATCH", path("/%d/sources/%d", theirs.ID, theirSrc.ID), map[string]any{"is_active": false}},
			{"DELETE", path("/%d/sources/%d", theirs.ID, theirSrc.ID), nil},
			{"POST", path("/%d/sources/%d/poll", theirs.ID, theirSrc.ID), nil},
			// Their source through my workspace's path.
			{"GET", path("/%d/sources/%d", mine.ID, theirSrc.ID), nil},
			{"PATCH", path("/%d/sources/%d", mine.ID, theirSrc.ID), map[string]any{"is_active": false}},
			{"DELETE", path("/%d/sources/%d", mine.ID, theirSrc.ID), nil},
			{"POST", path("/%d/sources/%d/poll", mine.ID, theirSrc.ID), nil},
			{"GET", path("/%d/articles", theirs.ID), nil},
			{"GET", path("/%d/content-items", theirs.ID), nil},
			{"GET", path("/%d/content-items/1", theirs.ID), nil},
			{"GET", path("/%d/content-items/1", mine.ID), nil},
			{"GET", path("/%d/tokens", theirs.ID), nil},
			{"POST", path("/%d/tokens", theirs.ID), map[string]any{"name": "x"}},
			{"DELETE", path("/%d/tokens/%d", theirs.ID, theirTokID), nil},
			{"DELETE", path("/%d/tokens/%d", mine.ID, theirTokID), nil},
		} {
			r := e.do(c.method, c.path, tok, c.body)
			if r.status != http.StatusNotFound {
				t.Errorf("%s %s with another workspace's token: %d %s, want 404", c.method, c.path, r.status, r.body)
				continue
			}
			if eb := r.errBody(t); strings.Contains(eb.Error, "theirs") || strings.Contains(eb.Error, "secret") {
				t.Errorf("404 leaks details: %s", eb.Error)
			}
		}
		if len(e.poller.Calls()) != polls {
			t.Fatal("another workspace's source was polled")
		}
		var src sourceJSON
		e.do("GET", path("/%d/sources/%d", theirs.ID, theirSrc.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &src)
		if !src.IsActive || src.Title != "Loopback News" {
			t.Fatalf("their source changed: %+v", src)
		}
		var ws workspaceJSON
		e.do("GET", path("/%d", theirs.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &ws)
		if ws.Name != "theirs" {
			t.Fatalf("their workspace renamed to %q", ws.Name)
		}
		if n := e.countRows(t, "feed_sources"); n != 3 {
			t.Fatalf("%d sources, want 3", n)
		}
		// Their token still works: mine could not revoke it.
		e.do("GET", path("/%d", theirs.ID), theirTok, nil).want(t, http.StatusOK)

		// Admin-only actions refuse a workspace token even in its own workspace.
		e.do("POST", wsPath, tok, map[string]any{"name": "new"}).want(t, http.StatusForbidden).errBody(t)
		e.do("POST", path("/%d/tokens", mine.ID), tok, map[string]any{"name": "more"}).want(t, http.StatusForbidden).errBody(t)
		if n := e.countRows(t, "workspaces"); n != 2 {
			t.Fatalf("%d workspaces after a forbidden create", n)
		}
	})
}

func (e *env) createSourceWith(t *testing.T, token string, wsID int64, body map[string]any) sourceJSON {
	t.Helper()
	var src sourceJSON
	e.do("POST", path("/%d/sources", wsID), token, body).want(t, http.StatusCreated).decode(t, &src)
	return src
}

func TestTokenLifecycle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "tokens")
		var created struct {
			ID          int64  `json:"id"`
			WorkspaceID int64  `json:"workspace_id"`
			Token       string `json:"token"`
		}
		e.do("POST", path("/%d/tokens", ws.ID), e.admin, map[string]any{"name": "deploy"}).want(t, http.StatusCreated).decode(t, &created)
		if created.WorkspaceID != ws.ID || len(created.Token) < 40 {
			t.Fatalf("created token %+v", created)
		}
		var list struct {
			Items []struct {
				ID        int64   `json:"id"`
				Name      string  `json:"name"`
				RevokedAt *string `json:"revoked_at"`
			}
		}
		e.do("GET", path("/%d/tokens", ws.ID), created.Token, nil).want(t, http.StatusOK).decode(t, &list)
		if len(list.Items) != 1 || list.Items[0].Name != "deploy" || list.Items[0].RevokedAt != nil {
			t.Fatalf("token list %+v", list.Items)
		}
		if strings.Contains(string(e.do("GET", path("/%d/tokens", ws.ID), e.admin, nil).body), created.Token) {
			t.Fatal("token list shows the secret")
		}
		// Only the hash is stored.
		var stored int
		if err := e.store.DB().Get(&stored, e.store.DB().Rebind(`SELECT COUNT(*) FROM api_tokens WHERE token_hash = ?`), created.Token); err != nil {
			t.Fatal(err)
		}
		if stored != 0 {
			t.Fatal("the token secret is stored in clear")
		}

		e.do("POST", path("/%d/tokens", ws.ID), e.admin, map[string]any{"name": ""}).want(t, http.StatusBadRequest)
		e.do("POST", path("/999999/tokens"), e.admin, map[string]any{"name": "x"}).want(t, http.StatusNotFound)

		e.do("DELETE", path("/%d/tokens/%d", ws.ID, created.ID), e.admin, nil).want(t, http.StatusOK)
		e.do("GET", path("/%d", ws.ID), created.Token, nil).want(t, http.StatusUnauthorized)
		e.do("DELETE", path("/%d/tokens/%d", ws.ID, created.ID), e.admin, nil).want(t, http.StatusNotFound)
		e.do("DELETE", path("/%d/tokens/abc", ws.ID), e.admin, nil).want(t, http.StatusNotFound)

		if logs := e.logs.String(); strings.Contains(logs, created.Token) || strings.Contains(logs, e.admin) {
			t.Fatal("a token appears in the request log")
		}
		if !strings.Contains(e.logs.String(), "status=201") {
			t.Fatalf("request log lacks statuses:\n%s", e.logs.String())
		}
	})
}

func TestEnsureAdminToken(t *testing.T) {
	for _, d := range []string{"sqlite", "postgres"} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t, d)
			var kept []string
			keep := func(tok string) error { kept = append(kept, tok); return nil }
			if got, err := auth.EnsureAdminToken(ctx, s, "configured-secret", keep); err != nil || got.Generated != "" || len(kept) != 0 {
				t.Fatalf("with a configured token: %+v %v", got, err)
			}
			if has, _ := s.HasAdminToken(ctx); has {
				t.Fatal("the configured token was stored")
			}
			// Without a place to keep it, no token is generated.
			if _, err := auth.EnsureAdminToken(ctx, s, "", func(string) error { return errors.New("disk full") }); err == nil ||
				!strings.Contains(err.Error(), "disk full") {
				t.Fatalf("keep failed: %v, want the failure", err)
			}
			if has, _ := s.HasAdminToken(ctx); has {
				t.Fatal("a token nobody could keep was stored")
			}
			got, err := auth.EnsureAdminToken(ctx, s, "", keep)
			tok := got.Generated
			if err != nil || len(tok) != 43 || len(kept) != 1 || kept[0] != tok {
				t.Fatalf("generated %q (%v), kept %q; want 43 base64url characters, kept", tok, err, kept)
			}
			if again, err := auth.EnsureAdminToken(ctx, s, "", keep); err != nil || again.Generated != "" {
				t.Fatalf("second start generated another token %+v (%v)", again, err)
			}
			stored, err := s.LookupToken(ctx, tok)
			if err != nil || stored.WorkspaceID != nil || !stored.Generated {
				t.Fatalf("generated token lookup %+v %v", stored, err)
			}
			// The generated token is an admin token for the server.
			srv, err := newAPI(apiOptions{Store: s, Options: api.Options{Log: slog.New(slog.DiscardHandler)}})
			if err != nil {
				t.Fatal(err)
			}
			e := &env{t: t, store: s, srv: newTestServer(t, srv.Handler())}
			e.do("POST", wsPath, tok, map[string]any{"name": "by-generated-admin"}).want(t, http.StatusCreated)
			var n int
			if err := s.DB().Get(&n, `SELECT COUNT(*) FROM api_tokens`); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("%d tokens stored", n)
			}
		})
	}
}

// Once FEEDPOLLER_ADMIN_TOKEN is set, the token generated at first start
// stops working (the operator replaced it), while admin tokens created on
// purpose keep working.
func TestGeneratedAdminTokenRevokedOnceConfigured(t *testing.T) {
	for _, d := range []string{"sqlite", "postgres"} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t, d)
			got, err := auth.EnsureAdminToken(ctx, s, "", func(string) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			made, _ := auth.NewToken()
			if _, err := s.CreateToken(ctx, nil, "deploy", made); err != nil {
				t.Fatal(err)
			}
			change, err := auth.EnsureAdminToken(ctx, s, "configured-secret", func(string) error { return nil })
			if err != nil || change.Revoked != 1 {
				t.Fatalf("start with a configured token: %+v %v, want the generated token revoked", change, err)
			}
			srv, err := newAPI(apiOptions{Store: s, Options: api.Options{AdminToken: "configured-secret", Log: slog.New(slog.DiscardHandler)}})
			if err != nil {
				t.Fatal(err)
			}
			e := &env{t: t, store: s, srv: newTestServer(t, srv.Handler())}
			e.do("GET", wsPath, got.Generated, nil).want(t, http.StatusUnauthorized)
			e.do("GET", wsPath, made, nil).want(t, http.StatusOK)
			e.do("GET", wsPath, "configured-secret", nil).want(t, http.StatusOK)
			// A later start without the variable does not bring it back.
			again, err := auth.EnsureAdminToken(ctx, s, "", func(string) error { return nil })
			if err != nil || again.Generated != "" {
				t.Fatalf("start without the variable, another admin token live: %+v %v, want nothing generated", again, err)
			}
			if _, err := s.LookupToken(ctx, got.Generated); err == nil {
				t.Fatal("the revoked generated token came back")
			}
		})
	}
}
