package api_test

import (
	"net/http"
	"testing"
)

// BenchmarkListContentItems measures one full page (200 items) of
// GET …/content-items over loopback on SQLite: auth lookup, query, JSON,
// including the OpenAPI response check the test client does.
func BenchmarkListContentItems(b *testing.B) {
	e := newEnv(b, "sqlite")
	var ws workspaceJSON
	e.do("POST", wsPath, e.admin, map[string]any{"name": "bench"}).decode(b, &ws)
	var src sourceJSON
	e.do("POST", path("/%d/sources", ws.ID), e.admin, map[string]any{"url": "https://a.test/feed", "source_type": "api"}).decode(b, &src)
	e.seedArticles(b, ws.ID, src.ID, 400, "bench") // 200 promoted
	tok := ""
	{
		var t struct{ Token string }
		e.do("POST", path("/%d/tokens", ws.ID), e.admin, map[string]any{"name": "bench"}).decode(b, &t)
		tok = t.Token
	}
	p := path("/%d/content-items?limit=200", ws.ID)
	b.ResetTimer()
	for b.Loop() {
		if r := e.call(call{method: "GET", path: p, token: tok, offSpec: true}); r.status != http.StatusOK {
			b.Fatalf("status %d", r.status)
		}
	}
}

// BenchmarkCreateSourceRejected measures refusing a bad body (decode,
// validate, answer), the path hostile clients hit.
func BenchmarkCreateSourceRejected(b *testing.B) {
	e := newEnv(b, "sqlite")
	var ws workspaceJSON
	e.do("POST", wsPath, e.admin, map[string]any{"name": "bench"}).decode(b, &ws)
	body := []byte(`{"url":"ftp://example.com/feed","source_type":"api","polling_interval_minutes":0}`)
	p := path("/%d/sources", ws.ID)
	b.ResetTimer()
	for b.Loop() {
		if r := e.call(call{method: "POST", path: p, token: e.admin, body: body, offSpec: true}); r.status != http.StatusBadRequest {
			b.Fatalf("status %d", r.status)
		}
	}
}
