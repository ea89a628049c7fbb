package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// apiError is an error a client can act on: it is answered as
// {"error": Message, "fields": Fields} with Status.
type apiError struct {
	Status  int
	Message string
	Fields  map[string]string
}

func (e *apiError) Error() string { return e.Message }

// errorBody is the JSON of every error answer.
type errorBody struct {
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields,omitempty"`
}

func newError(status int, format string, args ...any) *apiError {
	return &apiError{Status: status, Message: fmt.Sprintf(format, args...)}
}

func badRequest(msg string, fields map[string]string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Message: msg, Fields: fields}
}

func fieldError(field, reason string) *apiError {
	return badRequest(fmt.Sprintf("invalid %s: %s", field, reason), map[string]string{field: reason})
}

func notFound(what string) *apiError {
	return newError(http.StatusNotFound, "%s not found", what)
}

// handlerFunc is an endpoint: it writes its success answer itself and
// returns any failure for fail to answer.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// fail answers err: an apiError as it says, a service error by its kind,
// the store's sentinels as 404 and 409, anything else as a logged 500
// that tells the client nothing of the internals.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var (
		ae *apiError
		se *service.Error
	)
	switch {
	case errors.As(err, &ae):
		writeJSON(w, ae.Status, errorBody{Error: ae.Message, Fields: ae.Fields})
	case errors.As(err, &se):
		writeJSON(w, se.HTTPStatus(), errorBody{Error: se.Message, Fields: se.Fields})
	case errors.Is(err, model.ErrNotFound):
		writeJSON(w, http.StatusNotFound, errorBody{Error: "not found"})
	case errors.Is(err, model.ErrConflict):
		writeJSON(w, http.StatusConflict, errorBody{Error: "already exists"})
	case errors.Is(err, model.ErrSearchTimeout):
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "the search (q) ran too long and was stopped: " +
			"use rarer words or a phrase, or narrow it by source or dates", Fields: map[string]string{"q": "ran too long"}})
	case errors.Is(err, model.ErrSearchBusy):
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "too many searches (q) are running at once; try again in a moment"})
	default:
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", loggedPath(r.URL.Path), "err", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "internal error; the server log has the details"})
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		// Only our own response types reach here; a failure is a bug.
		status = http.StatusInternalServerError
		body = []byte(`{"error":"internal error: response could not be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
