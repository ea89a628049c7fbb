package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// Bad input answers 4xx with the reason and writes nothing.
func TestBadSourceInput(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "bad")
		feed := e.site.URL + "/feed.xml"
		cases := []struct {
			name        string
			body        any
			contentType string
			status      int
			field       string // named in fields, when one is to blame
			reason      string // in the error message
		}{
			{"malformed JSON", `{"url": "` + feed + `",`, "", 400, "", "malformed JSON"},
			{"syntax error", `{"url" "x"}`, "", 400, "", "malformed JSON at byte"},
			{"empty body", ``, "", 400, "", "empty"},
			{"array body", `[1,2]`, "", 400, "", "JSON object"},
			{"two objects", `{"url":"` + feed + `"} {"url":"` + feed + `"}`, "", 400, "", "exactly one JSON object"},
			{"unknown field", map[string]any{"url": feed, "intervall": 5}, "", 400, "intervall", "intervall"},
			{"wrong type: interval as string", map[string]any{"url": feed, "polling_interval_minutes": "30"}, "", 400, "polling_interval_minutes", "whole number"},
			{"wrong type: fractional interval", `{"url":"` + feed + `","polling_interval_minutes":1.5}`, "", 400, "polling_interval_minutes", "whole number"},
			{"wrong type: huge interval", `{"url":"` + feed + `","polling_interval_minutes":1e30}`, "", 400, "polling_interval_minutes", "whole number"},
			{"wrong type: url as number", map[string]any{"url": 7}, "", 400, "url", "string"},
			{"wrong type: is_active as string", map[string]any{"url": feed, "is_active": "yes"}, "", 400, "is_active", "true or false"},
			{"interval 0", map[string]any{"url": feed, "polling_interval_minutes": 0}, "", 400, "polling_interval_minutes", "at least 1"},
			{"interval 43201", map[string]any{"url": feed, "polling_interval_minutes": 43201}, "", 400, "polling_interval_minutes", "at most 43200"},
			{"negative interval", map[string]any{"url": feed, "polling_interval_minutes": -5}, "", 400, "polling_interval_minutes", "at least 1"},
			{"missing url", map[string]any{"source_type": "rss"}, "", 400, "url", "required"},
			{"ftp URL", map[string]any{"url": "ftp://example.com/feed"}, "", 400, "url", "http(s)"},
			{"javascript URL", map[string]any{"url": "javascript:alert(1)"}, "", 400, "url", "http(s)"},
			{"relative URL", map[string]any{"url": "/feed.xml"}, "", 400, "url", "http(s)"},
			{"no host", map[string]any{"url": "http:///feed"}, "", 400, "url", "host"},
			{"credentials in URL", map[string]any{"url": "https://user:pass@example.com/feed"}, "", 400, "url", "credentials"},
			{"user only in URL", map[string]any{"url": "https://user@example.com/feed"}, "", 400, "url", "credentials"},
			{"3000-char URL", map[string]any{"url": "https://example.com/" + strings.Repeat("a", 2980)}, "", 400, "url", "2048"},
			{"space in URL", map[string]any{"url": "https://example.com/a b"}, "", 400, "url", "spaces"},
			{"unknown source type", map[string]any{"url": feed, "source_type": "gopher"}, "", 400, "source_type", "rss, web, api"},
			{"title too long", map[string]any{"url": feed, "title": strings.Repeat("t", 501)}, "", 400, "title", "500"},
			{"NUL in title", map[string]any{"url": feed, "source_type": "api", "title": "a\x00b"}, "", 400, "title", "NUL"},
			{"2 MiB body", `{"url":"` + feed + `","title":"` + strings.Repeat("x", 2<<20) + `"}`, "", 413, "", "1 MiB"},
			{"form content type", "url=" + feed, "application/x-www-form-urlencoded", 415, "", "application/json"},
			{"text content type", `{"url":"` + feed + `"}`, "text/plain", 415, "", "application/json"},
			{"no content type", `{"url":"` + feed + `"}`, "-", 415, "", "application/json"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := e.countRows(t, "feed_sources")
				cl := call{method: "POST", path: path("/%d/sources", ws.ID), token: e.admin, body: c.body, contentType: c.contentType}
				if s, ok := c.body.(string); ok && s == "" {
					cl.body = []byte{}
				}
				r := e.call(cl).want(t, c.status)
				eb := r.errBody(t)
				if !strings.Contains(eb.Error, c.reason) {
					t.Errorf("error %q does not give the reason %q", eb.Error, c.reason)
				}
				if c.field != "" && eb.Fields[c.field] == "" {
					t.Errorf("fields %v do not name %q", eb.Fields, c.field)
				}
				if after := e.countRows(t, "feed_sources"); after != before {
					t.Errorf("refused request wrote a source (%d → %d)", before, after)
				}
			})
		}
	})
}

func TestUnknownRoutesAnswerJSON(t *testing.T) {
	e := newEnv(t, "sqlite")
	r := e.call(call{method: "GET", path: "/nope", offSpec: true}).want(t, http.StatusNotFound)
	r.errBody(t)
	r = e.call(call{method: "PUT", path: path("/1"), token: e.admin, offSpec: true}).want(t, http.StatusMethodNotAllowed)
	if !strings.Contains(r.errBody(t).Error, "PUT") || !strings.Contains(r.header.Get("Allow"), "PATCH") {
		t.Fatalf("405 %s allow %q", r.body, r.header.Get("Allow"))
	}
	e.call(call{method: "GET", path: "/api/intelligence/nothing", token: e.admin, offSpec: true}).want(t, http.StatusNotFound).errBody(t)
}
