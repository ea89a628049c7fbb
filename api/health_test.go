package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestHealthReadyMetrics(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		var h struct{ Status, Reason string }
		e.do("GET", "/healthz", "", nil).want(t, http.StatusOK).decode(t, &h)
		if h.Status != "ok" {
			t.Fatalf("healthz %+v", h)
		}
		e.do("GET", "/readyz", "", nil).want(t, http.StatusOK).decode(t, &h)
		if h.Status != "ready" {
			t.Fatalf("readyz %+v", h)
		}
		r := e.do("GET", "/metrics", "", nil).want(t, http.StatusOK)
		if !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
			t.Fatalf("metrics content type %q", r.header.Get("Content-Type"))
		}

		// A schema behind the binary is not ready, and says what to do.
		if _, err := e.store.DB().ExecContext(context.Background(), `DELETE FROM schema_migrations`); err != nil {
			t.Skipf("cannot roll the schema version back here: %v", err)
		}
		e.do("GET", "/readyz", "", nil).want(t, http.StatusServiceUnavailable).decode(t, &h)
		if h.Status != "unavailable" || !strings.Contains(h.Reason, "migrate") {
			t.Fatalf("readyz with an old schema %+v", h)
		}
	})
}

func TestReadyzWithClosedDatabase(t *testing.T) {
	e := newEnv(t, "sqlite")
	e.store.Close()
	var h struct{ Status, Reason string }
	e.do("GET", "/readyz", "", nil).want(t, http.StatusServiceUnavailable).decode(t, &h)
	if h.Status != "unavailable" || h.Reason == "" {
		t.Fatalf("readyz with a closed database %+v", h)
	}
}

func TestMetricsServesGatherer(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "feedpoller_test_polls_total", Help: "test"})
	reg.MustRegister(c)
	c.Add(7)
	e := newEnv(t, "sqlite", func(o *apiOptions) { o.Gatherer = reg })
	r := e.do("GET", "/metrics", "", nil).want(t, http.StatusOK)
	if !strings.Contains(string(r.body), "feedpoller_test_polls_total 7") {
		t.Fatalf("metrics do not come from the gatherer:\n%s", r.body)
	}
}
