package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestPollNow(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "poll")
		src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml"})

		var out struct {
			SourceID   int64  `json:"source_id"`
			Status     string `json:"status"`
			HTTPStatus int    `json:"http_status"`
			ItemsNew   int    `json:"items_new"`
		}
		e.do("POST", path("/%d/sources/%d/poll", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &out)
		if out.SourceID != src.ID || out.Status != "ok" || out.HTTPStatus != 200 || out.ItemsNew != 2 {
			t.Fatalf("poll answer %+v", out)
		}
		if calls := e.poller.Calls(); len(calls) != 1 || calls[0] != [2]int64{ws.ID, src.ID} {
			t.Fatalf("poller calls %v", calls)
		}

		// A source another poll holds answers 409 and is not polled twice.
		if _, err := e.store.ClaimSource(context.Background(), ws.ID, src.ID, "someone-else", time.Minute); err != nil {
			t.Fatal(err)
		}
		r := e.do("POST", path("/%d/sources/%d/poll", ws.ID, src.ID), e.admin, nil).want(t, http.StatusConflict)
		if !strings.Contains(r.errBody(t).Error, "being polled") {
			t.Fatalf("409 does not say why: %s", r.body)
		}
		e.do("POST", path("/%d/sources/999999/poll", ws.ID), e.admin, nil).want(t, http.StatusNotFound)
		if calls := e.poller.Calls(); len(calls) != 1 {
			t.Fatalf("poller called %d times, want 1", len(calls))
		}
	})
}

func TestPollWithoutPoller(t *testing.T) {
	e := newEnv(t, "sqlite", withoutPoller())
	ws := e.createWorkspace(t, "np")
	src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
	r := e.do("POST", path("/%d/sources/%d/poll", ws.ID, src.ID), e.admin, nil).want(t, http.StatusServiceUnavailable)
	if !strings.Contains(r.errBody(t).Error, "poller") {
		t.Fatalf("503 does not say why: %s", r.body)
	}
}
