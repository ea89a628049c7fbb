package api

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/feedpoller/feedpoller/opml"
	"github.com/feedpoller/feedpoller/service"
)

// importSources creates a source for every outline of the OPML body
// through the source service and answers the report: each outline added,
// duplicate or rejected with the reason. validate=false stores the
// sources without validation fetches (checked at their first poll). The validation fetches take a
// while for a long list (bounded concurrency, one fetch per host at a
// time), so the server's write deadline is lifted for this request; a
// client that goes away stops the import.
func (s *Server) importSources(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	webPages := false
	if v := r.URL.Query().Get("web_pages"); v != "" {
		if webPages, err = strconv.ParseBool(v); err != nil {
			return fieldError("web_pages", "must be true or false")
		}
	}
	validate := true
	if v := r.URL.Query().Get("validate"); v != "" {
		if validate, err = strconv.ParseBool(v); err != nil {
			return fieldError("validate", "must be true or false")
		}
	}
	if err := http.NewResponseController(w).SetWriteDeadline(time.Time{}); err != nil {
		s.log.DebugContext(r.Context(), "import: write deadline kept", "err", err)
	}
	// One byte over the parser's cap, so the parser reports the limit in
	// its own words; the reader then makes the server close the connection.
	body := http.MaxBytesReader(w, r.Body, opml.DefaultMaxBytes+1)
	rep, err := s.svc.ImportOPML(r.Context(), ws.ID, body, service.ImportOptions{WebPages: webPages, Unvalidated: !validate})
	if errors.Is(err, opml.ErrTooLarge) {
		return newError(http.StatusRequestEntityTooLarge, "%s", err.Error())
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// exportSources answers the workspace's sources as an OPML 2.0 document.
func (s *Server) exportSources(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := s.svc.ExportOPML(r.Context(), ws.ID, &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/x-opml; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="feedpoller-workspace-%d.opml"`, ws.ID))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes()) // the client went away: nothing left to tell it
	return nil
}
