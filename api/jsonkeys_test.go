package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestDuplicateAndCaseVariantKeys: encoding/json keeps the last of two
// equal keys and matches field names ignoring case, so {"url": a, "URL":
// b} would silently store b. Every endpoint that reads a body answers 400
// naming the key instead, and writes nothing.
func TestDuplicateAndCaseVariantKeys(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "keys")
		src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
		feed := e.site.URL + "/page.html"
		// Each endpoint, with its other fields and one field to misspell.
		endpoints := []struct {
			method, path, rest, key, value string
			profile                        bool // takes a relevance_profile
		}{
			{"POST", wsPath, `"relevance_profile": {"threshold": 0.5}`, "name", `"fresh"`, true},
			{"PATCH", path("/%d", ws.ID), `"relevance_profile": {"threshold": 0.5}`, "name", `"renamed"`, true},
			{"POST", path("/%d/sources", ws.ID), `"url": "` + feed + `", "source_type": "web"`, "title", `"t"`, false},
			{"PATCH", path("/%d/sources/%d", ws.ID, src.ID), `"is_active": true`, "title", `"t"`, false},
			{"POST", path("/%d/tokens", ws.ID), "", "name", `"ci"`, false},
		}
		for _, ep := range endpoints {
			upper := strings.ToUpper(ep.key[:1]) + ep.key[1:]
			pair := func(k string) string { return `"` + k + `": ` + ep.value }
			cases := []struct{ name, body, field, words string }{
				{"same key twice", object(ep.rest, pair(ep.key), pair(ep.key)), ep.key, "twice"},
				{"keys differing only in case", object(ep.rest, pair(ep.key), pair(upper)), upper, `"` + ep.key + `"`},
				{"a key in the wrong case", object(ep.rest, pair(strings.ToUpper(ep.key))), strings.ToUpper(ep.key), "case-sensitive"},
			}
			if ep.profile {
				cases = append(cases, []struct{ name, body, field, words string }{
					{"nested duplicate", `{"name": "n", "relevance_profile": {"threshold": 0.1, "threshold": 0.9}}`,
						"relevance_profile.threshold", "twice"},
					{"nested in an array", `{"name": "n", "relevance_profile": {"keywords": [{"term": "go", "weight": 1, "Weight": 5}]}}`,
						"relevance_profile.keywords[0].Weight", `"weight"`},
				}...)
			}
			for _, c := range cases {
				t.Run(ep.method+" "+ep.path+": "+c.name, func(t *testing.T) {
					before := e.countRows(t, "workspaces") + e.countRows(t, "feed_sources") + e.countRows(t, "api_tokens")
					r := e.call(call{method: ep.method, path: ep.path, token: e.admin, body: c.body})
					if r.status != http.StatusBadRequest {
						t.Fatalf("status %d, want 400: %s", r.status, r.body)
					}
					eb := r.errBody(t)
					if eb.Fields[c.field] == "" || !strings.Contains(eb.Error, c.field) || !strings.Contains(eb.Error, c.words) {
						t.Errorf("answer %+v does not name the key %q with %q", eb, c.field, c.words)
					}
					after := e.countRows(t, "workspaces") + e.countRows(t, "feed_sources") + e.countRows(t, "api_tokens")
					if after != before {
						t.Errorf("a refused request wrote rows (%d → %d)", before, after)
					}
				})
			}
		}
		// Nesting past the decoder's limit is its 400, not a deep walk.
		deep := `{"name": "deep", "relevance_profile": ` + strings.Repeat(`{"a": `, 20000) + "1" + strings.Repeat("}", 20001)
		e.call(call{method: "POST", path: wsPath, token: e.admin, body: deep}).want(t, http.StatusBadRequest)
		// A key named a second time in another object is no duplicate.
		e.do("POST", wsPath, e.admin, map[string]any{"name": "ok", "relevance_profile": map[string]any{
			"keywords": []map[string]any{{"term": "a", "weight": 1}, {"term": "b", "weight": 2}}}}).want(t, http.StatusCreated)
	})
}

// object writes a JSON object of the given members, skipping empty ones.
func object(members ...string) string {
	var kept []string
	for _, m := range members {
		if m != "" {
			kept = append(kept, m)
		}
	}
	return "{" + strings.Join(kept, ", ") + "}"
}
