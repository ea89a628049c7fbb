package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/feedpoller/feedpoller/auth"
)

type principalKey struct{}

// principalFrom is who the request acts as (see requireAuth).
func principalFrom(ctx context.Context) auth.Caller {
	p, _ := ctx.Value(principalKey{}).(auth.Caller)
	return p
}

var errUnauthorized = newError(http.StatusUnauthorized, "missing or invalid bearer token")

// authenticate resolves the bearer token of r (see auth.Authenticate);
// a missing, malformed, unknown or revoked token is errUnauthorized.
func (s *Server) authenticate(r *http.Request) (auth.Caller, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return auth.Caller{}, errUnauthorized
	}
	c, err := auth.Authenticate(r.Context(), s.store, s.adminHash, token)
	if errors.Is(err, auth.ErrUnauthorized) {
		return auth.Caller{}, errUnauthorized
	}
	return c, err
}

// errReadOnly: the token is valid but may not change anything. 403 says
// nothing about any workspace.
var errReadOnly = newError(http.StatusForbidden, "this token may only read: GET requests only")

// requireAuth runs h only for an authenticated request, with its principal
// in the context.
func (s *Server) requireAuth(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r)
		if err == nil && p.ReadOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
			err = errReadOnly
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// requireAdmin refuses workspace tokens. 403 is safe here: the answer says
// nothing about any workspace.
func requireAdmin(r *http.Request) error {
	if !principalFrom(r.Context()).Admin {
		return newError(http.StatusForbidden, "this needs the admin token")
	}
	return nil
}
