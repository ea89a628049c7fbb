package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/feedpoller/feedpoller/store"
)

// pollResult is the poll endpoint's answer.
type pollResult struct {
	SourceID int64 `json:"source_id"`
	PollOutcome
}

func (s *Server) pollSource(w http.ResponseWriter, r *http.Request) error {
	ws, src, err := s.source(r)
	if err != nil {
		return err
	}
	if s.poller == nil {
		return newError(http.StatusServiceUnavailable, "polling on demand is not available: this process runs without a poller")
	}
	out, err := s.poller.PollNow(r.Context(), ws.ID, src.ID)
	switch {
	case errors.Is(err, store.ErrLeased):
		return newError(http.StatusConflict, "source %d is being polled right now; try again when that poll ends", src.ID)
	case errors.Is(err, store.ErrNotFound):
		return notFound("source")
	case err != nil:
		return fmt.Errorf("poll source %d now: %w", src.ID, err)
	}
	writeJSON(w, http.StatusOK, pollResult{SourceID: src.ID, PollOutcome: out})
	return nil
}
