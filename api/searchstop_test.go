package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/api"
	"github.com/feedpoller/feedpoller/internal/servicetest"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// TestSearchStoppedAnswers503: a listing's q= runs under the search
// deadline like MCP's search; a search it stops is a 503 naming the
// search, not a 500 or a request that holds a connection for minutes.
func TestSearchStoppedAnswers503(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			s, err := store.OpenWith(ctx, testdb.URL(t, dialect), store.Options{SearchTimeout: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			e := &env{t: t, store: s, logs: &syncBuffer{}, admin: "admin-search-stopped-token"}
			srv, err := newAPI(apiOptions{Store: s, Validator: servicetest.NewValidator(),
				Options: api.Options{AdminToken: e.admin, Log: slog.New(slog.NewTextHandler(e.logs, nil))}})
			if err != nil {
				t.Fatal(err)
			}
			e.srv = newTestServer(t, srv.Handler())
			ws := e.createWorkspace(t, "stopped")
			for _, list := range []string{"/%d/articles?q=golang", "/%d/content-items?q=golang"} {
				r := e.do("GET", path(list, ws.ID), e.admin, nil).want(t, http.StatusServiceUnavailable)
				if !strings.Contains(string(r.body), "search") {
					t.Errorf("%s: %s, want an error naming the search", list, r.body)
				}
			}
			if got := e.do("GET", path("/%d/articles", ws.ID), e.admin, nil); got.status != http.StatusOK {
				t.Errorf("a listing without q=: %d, want 200 (no search, no deadline)", got.status)
			}
		})
	}
}

// TestReadyzSeesAnExhaustedPool: /readyz answers 503 naming the pool
// while every database connection stays busy, and ready again after.
func TestReadyzSeesAnExhaustedPool(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		var held []interface{ Close() error }
		for range e.store.PoolStats().MaxOpenConnections {
			c, err := e.store.DB().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		var h struct{ Status, Reason string }
		e.do("GET", "/readyz", "", nil).want(t, http.StatusServiceUnavailable).decode(t, &h)
		if !strings.Contains(h.Reason, "connection pool exhausted") {
			t.Errorf("readyz with every connection busy: %+v", h)
		}
		for _, c := range held {
			_ = c.Close()
		}
		e.do("GET", "/readyz", "", nil).want(t, http.StatusOK)
	})
}
