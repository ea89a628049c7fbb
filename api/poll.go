package api

import (
	"net/http"
	"time"
)

// pollResult is the poll endpoint's answer.
type pollResult struct {
	SourceID       int64  `json:"source_id"`
	Status         string `json:"status"`
	HTTPStatus     int    `json:"http_status"`
	ItemsSeen      int    `json:"items_seen"`
	ItemsNew       int    `json:"items_new"`
	ItemsDuplicate int    `json:"items_duplicate"`
	ItemsUnchanged int    `json:"items_unchanged"`
	ItemsPromoted  int    `json:"items_promoted"`
	Error          string `json:"error"`
	DurationMS     int64  `json:"duration_ms"`
	// NextPollAt and NextPollReason are absent when the poller reported
	// none.
	NextPollAt     *time.Time `json:"next_poll_at,omitempty"`
	NextPollReason string     `json:"next_poll_reason,omitempty"`
}

func (s *Server) pollSource(w http.ResponseWriter, r *http.Request) error {
	wsID, err := workspaceID(r)
	if err != nil {
		return err
	}
	id, _ := pathID(r, "sourceId")
	o, err := s.svc.PollSource(r.Context(), wsID, id)
	if err != nil {
		return err
	}
	res := pollResult{SourceID: id, Status: o.Status, HTTPStatus: o.HTTPStatus, ItemsSeen: o.ItemsSeen,
		ItemsNew: o.ItemsNew, ItemsDuplicate: o.ItemsDuplicate, ItemsUnchanged: o.ItemsUnchanged, ItemsPromoted: o.ItemsPromoted, Error: o.Error, DurationMS: o.DurationMS,
		NextPollReason: o.NextPollReason}
	if !o.NextPollAt.IsZero() {
		res.NextPollAt = &o.NextPollAt
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
