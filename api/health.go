package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type healthBody struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, healthBody{Status: "ok"})
}

// readyTimeout bounds the readiness check, so a hung database answers 503
// instead of hanging the probe.
const readyTimeout = 5 * time.Second

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.store.Ready(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, healthBody{Status: "unavailable", Reason: err.Error()})
		return
	}
	// A database on a full disk (or turned read-only) still answers the
	// ping and reads: only the writes tell.
	if err := s.store.WriteFailure(); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, healthBody{Status: "unavailable", Reason: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, healthBody{Status: "ready"})
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{ErrorLog: slogPrinter{s}})
}

// slogPrinter lets promhttp report gathering errors through our logger.
type slogPrinter struct{ s *Server }

func (p slogPrinter) Println(v ...any) {
	p.s.log.Error("metrics", "err", fmt.Sprint(v...))
}
