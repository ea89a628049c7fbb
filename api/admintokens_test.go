package api_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/api"
	"github.com/feedpoller/feedpoller/auth"
)

type tokenJSON struct {
	ID          int64   `json:"id"`
	WorkspaceID *int64  `json:"workspace_id"`
	Name        string  `json:"name"`
	Generated   bool    `json:"generated"`
	RevokedAt   *string `json:"revoked_at"`
	Token       string  `json:"token"`
}

// Admin tokens are managed over the API by an admin: created (the secret
// shown once), listed without secrets, revoked, after which they stop
// working. Workspace tokens may do none of it.
func TestAdminTokenLifecycle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		const adminTokens = "/api/intelligence/tokens"
		ws := e.createWorkspace(t, "tenant")
		wsTok := e.workspaceToken(t, ws.ID)

		var created tokenJSON
		e.do("POST", adminTokens, e.admin, map[string]any{"name": "ops laptop"}).want(t, http.StatusCreated).decode(t, &created)
		if created.WorkspaceID != nil || created.Name != "ops laptop" || len(created.Token) != 43 {
			t.Fatalf("created admin token %+v", created)
		}
		// It is an admin token: it may create workspaces.
		e.do("POST", wsPath, created.Token, map[string]any{"name": "by-new-admin"}).want(t, http.StatusCreated)

		var list struct{ Items []tokenJSON }
		r := e.do("GET", adminTokens, created.Token, nil).want(t, http.StatusOK)
		r.decode(t, &list)
		if len(list.Items) != 1 || list.Items[0].ID != created.ID || list.Items[0].WorkspaceID != nil || list.Items[0].RevokedAt != nil {
			t.Fatalf("admin token list %+v, want the one admin token (the workspace's is not one)", list.Items)
		}
		if strings.Contains(string(r.body), created.Token) {
			t.Fatal("the admin token list shows a secret")
		}

		// Workspace tokens may not touch admin tokens.
		e.do("GET", adminTokens, wsTok, nil).want(t, http.StatusForbidden).errBody(t)
		e.do("POST", adminTokens, wsTok, map[string]any{"name": "escalate"}).want(t, http.StatusForbidden).errBody(t)
		e.do("DELETE", fmt.Sprintf("%s/%d", adminTokens, created.ID), wsTok, nil).want(t, http.StatusForbidden).errBody(t)
		e.do("GET", adminTokens, "", nil).want(t, http.StatusUnauthorized)
		e.do("POST", adminTokens, e.admin, map[string]any{"name": " "}).want(t, http.StatusBadRequest)
		// The workspace's token is not an admin token to revoke here.
		var wsList struct{ Items []tokenJSON }
		e.do("GET", path("/%d/tokens", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &wsList)
		e.do("DELETE", fmt.Sprintf("%s/%d", adminTokens, wsList.Items[0].ID), e.admin, nil).want(t, http.StatusNotFound)
		e.do("GET", wsPath, wsTok, nil).want(t, http.StatusOK)

		e.do("DELETE", fmt.Sprintf("%s/%d", adminTokens, created.ID), e.admin, nil).want(t, http.StatusOK)
		e.do("GET", wsPath, created.Token, nil).want(t, http.StatusUnauthorized)
		e.do("DELETE", fmt.Sprintf("%s/%d", adminTokens, created.ID), e.admin, nil).want(t, http.StatusNotFound)
		e.do("DELETE", adminTokens+"/abc", e.admin, nil).want(t, http.StatusNotFound)
		e.do("GET", adminTokens, e.admin, nil).want(t, http.StatusOK).decode(t, &list)
		if len(list.Items) != 1 || list.Items[0].RevokedAt == nil {
			t.Fatalf("after revoking: %+v, want it listed as revoked", list.Items)
		}
	})
}

// Without FEEDPOLLER_ADMIN_TOKEN, the generated admin token is listed and
// can be replaced over the API, but the last live admin token cannot be
// revoked: that would leave no admin at all.
func TestGeneratedAdminTokenReplacedOverTheAPI(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		gen := e.withGeneratedAdmin(t)

		var list struct{ Items []tokenJSON }
		e.do("GET", "/api/intelligence/tokens", gen, nil).want(t, http.StatusOK).decode(t, &list)
		if len(list.Items) != 1 || !list.Items[0].Generated {
			t.Fatalf("admin tokens %+v, want the generated one", list.Items)
		}
		genID := list.Items[0].ID
		msg := e.do("DELETE", fmt.Sprintf("/api/intelligence/tokens/%d", genID), gen, nil).want(t, http.StatusConflict).errBody(t).Error
		if !strings.Contains(msg, "last admin token") {
			t.Fatalf("revoking the last admin token: %q", msg)
		}
		var next tokenJSON
		e.do("POST", "/api/intelligence/tokens", gen, map[string]any{"name": "replacement"}).want(t, http.StatusCreated).decode(t, &next)
		e.do("DELETE", fmt.Sprintf("/api/intelligence/tokens/%d", genID), next.Token, nil).want(t, http.StatusOK)
		e.do("GET", wsPath, gen, nil).want(t, http.StatusUnauthorized)
		e.do("GET", wsPath, next.Token, nil).want(t, http.StatusOK)
	})
}

// A read-only admin token cannot make another admin token, so it does not
// count for the last-admin guard: with a writable and a read-only admin
// token left, the writable one cannot be revoked (409), the read-only one
// can, and the writable one still works.
func TestLastWritableAdminTokenKept(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		gen := e.withGeneratedAdmin(t)
		var ro tokenJSON
		e.do("POST", "/api/intelligence/tokens", gen, map[string]any{"name": "dashboard", "read_only": true}).
			want(t, http.StatusCreated).decode(t, &ro)
		var list struct{ Items []tokenJSON }
		e.do("GET", "/api/intelligence/tokens", gen, nil).want(t, http.StatusOK).decode(t, &list)
		genID := list.Items[0].ID
		msg := e.do("DELETE", fmt.Sprintf("/api/intelligence/tokens/%d", genID), gen, nil).want(t, http.StatusConflict).errBody(t).Error
		if !strings.Contains(msg, "last admin token that may write") {
			t.Fatalf("revoking the last writable admin token beside a read-only one: %q", msg)
		}
		e.do("GET", wsPath, gen, nil).want(t, http.StatusOK)
		e.do("POST", wsPath, gen, map[string]any{"name": "still-writable"}).want(t, http.StatusCreated)
		e.do("DELETE", fmt.Sprintf("/api/intelligence/tokens/%d", ro.ID), gen, nil).want(t, http.StatusOK)
		// With only read-only admin tokens live, the daemon's start
		// generates a writable one (EnsureAdminToken) instead of trusting
		// them to administer.
		if has, err := e.store.HasAdminToken(ctx); err != nil || !has {
			t.Fatalf("HasAdminToken with a live writable token: %v %v", has, err)
		}
		if _, err := e.store.CreateReadOnlyToken(ctx, nil, "viewer", "viewer-token-secret"); err != nil {
			t.Fatal(err)
		}
		if err := e.store.RevokeAnyToken(ctx, genID); err != nil {
			t.Fatal(err)
		}
		again, err := auth.EnsureAdminToken(ctx, e.store, "", func(string) error { return nil })
		if err != nil || again.Generated == "" {
			t.Fatalf("only a read-only admin token live: generated %q (%v), want a new writable one", again.Generated, err)
		}
	})
}

// withGeneratedAdmin serves the API without a configured admin token, as
// a first start leaves it: one generated admin token, which it returns.
func (e *env) withGeneratedAdmin(t *testing.T) string {
	t.Helper()
	got, err := auth.EnsureAdminToken(context.Background(), e.store, "", func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newAPI(apiOptions{Store: e.store, Options: api.Options{Log: slog.New(slog.DiscardHandler)}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = newTestServer(t, srv.Handler())
	return got.Generated
}
