package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestReadOnlyTokenMayOnlyRead: a read-only workspace token reads its
// workspace and every change is refused with 403, nothing written, on
// both databases.
func TestReadOnlyTokenMayOnlyRead(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "ro")
		var tok struct {
			Token    string `json:"token"`
			ReadOnly bool   `json:"read_only"`
		}
		e.do("POST", path("/%d/tokens", ws.ID), e.admin, map[string]any{"name": "agent", "read_only": true}).
			want(t, http.StatusCreated).decode(t, &tok)
		if !tok.ReadOnly {
			t.Fatalf("created token: read_only false")
		}
		e.do("GET", path("/%d/sources", ws.ID), tok.Token, nil).want(t, http.StatusOK)
		e.do("GET", path("/%d/content-items?q=golang", ws.ID), tok.Token, nil).want(t, http.StatusOK)
		before := e.countRows(t, "feed_sources")
		src := e.createSource(t, ws.ID, map[string]any{"url": "https://ro.test/feed", "source_type": "api"})
		for _, c := range []struct{ method, path string }{
			{"POST", path("/%d/sources", ws.ID)},
			{"PATCH", path("/%d", ws.ID)},
			{"PATCH", path("/%d/sources/%d", ws.ID, src.ID)},
			{"DELETE", path("/%d/sources/%d", ws.ID, src.ID)},
			{"POST", path("/%d/sources/%d/poll", ws.ID, src.ID)},
		} {
			r := e.do(c.method, c.path, tok.Token, map[string]any{"url": "https://ro.test/other", "source_type": "api"}).want(t, http.StatusForbidden)
			if msg := r.errBody(t).Error; !strings.Contains(msg, "may only read") {
				t.Errorf("%s %s: %q", c.method, c.path, msg)
			}
		}
		if n := e.countRows(t, "feed_sources"); n != before+1 {
			t.Errorf("sources: %d, want %d (only the admin's)", n, before+1)
		}
	})
}

// TestLLMsTxt: /llms.txt needs no token and follows the convention: an H1
// title, a blockquote summary, sections of links to the MCP endpoint and
// the REST entry points.
func TestLLMsTxt(t *testing.T) {
	e := newEnv(t, "sqlite")
	r := e.do("GET", "/llms.txt", "", nil).want(t, http.StatusOK)
	body := string(r.body)
	for _, want := range []string{"# feedpoller\n\n> ", "\n## MCP\n", "\n## REST API\n", "(/openapi.yaml)", "/api/intelligence/workspaces"} {
		if !strings.Contains(body, want) {
			t.Errorf("llms.txt lacks %q:\n%s", want, body)
		}
	}
	resp, err := http.Get(e.srv.URL + "/llms.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") {
		t.Errorf("content type %q", ct)
	}
}
