package service

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// The kinds of failure a caller can act on. Every *Error is one of them
// (errors.Is(err, ErrConflict)); the API maps each to an HTTP status, the
// CLI prints the message.
var (
	// ErrInvalid: the input breaks a rule; Fields names each bad field.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound: the workspace or source does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the input duplicates what is stored (a source URL
	// already in the workspace, a workspace name taken).
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: this process cannot do it (no validator or poller).
	ErrUnavailable = errors.New("unavailable")
	// ErrLeased: another poll holds the source right now.
	ErrLeased = errors.New("being polled")
)

// Error is a failure the caller caused or can work around, worded for the
// person who asked.
type Error struct {
	// Kind is one of the Err* sentinels above.
	Kind error
	// Message says what went wrong in one sentence.
	Message string
	// Fields maps input field names (as the API spells them) to what is
	// wrong with each; empty when no single field is to blame.
	Fields map[string]string
	// SourceID is the stored source a duplicate matches (0: unknown).
	SourceID int64
	// Err is the cause, when a caller may tell causes apart (an OPML
	// body too large); nil for most errors.
	Err error
}

func (e *Error) Error() string { return e.Message }

// httpStatus is the HTTP status of each kind.
var httpStatus = []struct {
	kind   error
	status int
}{
	{ErrInvalid, http.StatusBadRequest},
	{ErrNotFound, http.StatusNotFound},
	{ErrConflict, http.StatusConflict},
	{ErrLeased, http.StatusConflict},
	{ErrUnavailable, http.StatusServiceUnavailable},
}

// HTTPStatus is the status a front end answering over HTTP (the API, the
// console) gives the error: one mapping for all of them; 500 for an error
// of no known kind.
func (e *Error) HTTPStatus() int {
	for _, k := range httpStatus {
		if errors.Is(e, k.kind) {
			return k.status
		}
	}
	return http.StatusInternalServerError
}

// Is makes errors.Is(err, ErrConflict) and the like work.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap is the cause, so errors.Is also finds it.
func (e *Error) Unwrap() error { return e.Err }

func notFound(what string) *Error {
	return &Error{Kind: ErrNotFound, Message: what + " not found"}
}

// Invalid is a validation failure naming every bad field, with a message
// that lists them in a stable order after prefix ("invalid request").
func Invalid(prefix string, fields map[string]string) *Error {
	return &Error{Kind: ErrInvalid, Message: prefix + ": " + JoinFields(fields), Fields: fields}
}

func invalidf(fields map[string]string, format string, args ...any) *Error {
	return &Error{Kind: ErrInvalid, Message: fmt.Sprintf(format, args...), Fields: fields}
}

// JoinFields renders field errors as one sentence, in a stable order:
// "name is required; title must be at most 500 characters".
func JoinFields(fields map[string]string) string {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + " " + fields[k]
	}
	return strings.Join(parts, "; ")
}
