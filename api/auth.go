package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/feedpoller/feedpoller/model"
)

// principal is who a request acts as: the admin, or one workspace.
type principal struct {
	admin       bool
	workspaceID int64 // 0 for the admin
	tokenID     int64 // 0 for the configured admin token
	readOnly    bool  // a token that may only read
}

// may reports whether the principal can act inside workspace id.
func (p principal) may(id int64) bool { return p.admin || p.workspaceID == id }

type principalKey struct{}

func principalFrom(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

var errUnauthorized = newError(http.StatusUnauthorized, "missing or invalid bearer token")

// maxTokenLen bounds what is hashed and looked up: generated tokens are 43
// characters, configured ones rarely more than a few dozen.
const maxTokenLen = 512

func tokenDigest(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// authenticate resolves the bearer token of r. It returns errUnauthorized
// for a missing, malformed, unknown or revoked token.
func (s *Server) authenticate(r *http.Request) (principal, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return principal{}, errUnauthorized
	}
	return authenticateToken(r.Context(), s.store, s.adminHash, token)
}

// authenticateToken resolves a bearer token: the configured admin token
// (by its digest), or a live stored one.
func authenticateToken(ctx context.Context, st TokenLookup, adminHash []byte, token string) (principal, error) {
	if token == "" || len(token) > maxTokenLen {
		return principal{}, errUnauthorized
	}
	// Digests are compared, not the tokens, so the comparison's time does
	// not depend on the configured token's length either.
	if adminHash != nil && subtle.ConstantTimeCompare(tokenDigest(token), adminHash) == 1 {
		return principal{admin: true}, nil
	}
	t, err := st.LookupToken(ctx, token)
	if errors.Is(err, model.ErrNotFound) {
		return principal{}, errUnauthorized
	}
	if err != nil {
		return principal{}, fmt.Errorf("authenticate request: %w", err)
	}
	if t.WorkspaceID == nil {
		return principal{admin: true, tokenID: t.ID, readOnly: t.ReadOnly}, nil
	}
	return principal{workspaceID: *t.WorkspaceID, tokenID: t.ID, readOnly: t.ReadOnly}, nil
}

// errReadOnly: the token is valid but may not change anything. 403 says
// nothing about any workspace.
var errReadOnly = newError(http.StatusForbidden, "this token may only read: GET requests only")

// requireAuth runs h only for an authenticated request, with its principal
// in the context.
func (s *Server) requireAuth(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r)
		if err == nil && p.readOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
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
	if !principalFrom(r.Context()).admin {
		return newError(http.StatusForbidden, "this needs the admin token")
	}
	return nil
}

// NewToken returns a fresh random bearer token: 32 bytes from crypto/rand,
// base64url without padding.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// GeneratedAdminTokenName names the admin token generated at first start.
const GeneratedAdminTokenName = "admin (generated at first start)"

// AdminTokenChange is what EnsureAdminToken did.
type AdminTokenChange struct {
	// Generated is a new admin token, already handed to keep; "" when none
	// was generated.
	Generated string
	// Revoked counts the generated admin tokens revoked because a token is
	// configured now.
	Revoked int64
}

// EnsureAdminToken makes sure some admin credential exists at start.
//
// With a configured token (FEEDPOLLER_ADMIN_TOKEN), which the server
// compares against and never stores, the token generated at an earlier
// first start is revoked: setting the variable is how an operator replaces
// it, so it must stop working. Admin tokens created explicitly (API or
// `feedpoller tokens create --admin`) stay valid.
//
// Without one, when the database holds no live admin token, it generates
// one and calls keep with it (the CLI writes it to a file only its user
// can read) before storing its hash; if keep fails nothing is stored.
func EnsureAdminToken(ctx context.Context, s AdminTokenStore, configured string, keep func(token string) error) (AdminTokenChange, error) {
	if configured != "" {
		n, err := s.RevokeGeneratedAdminTokens(ctx)
		if err != nil {
			return AdminTokenChange{}, fmt.Errorf("ensure admin token: %w", err)
		}
		return AdminTokenChange{Revoked: n}, nil
	}
	has, err := s.HasAdminToken(ctx)
	if err != nil {
		return AdminTokenChange{}, fmt.Errorf("ensure admin token: %w", err)
	}
	if has {
		return AdminTokenChange{}, nil
	}
	tok, err := NewToken()
	if err != nil {
		return AdminTokenChange{}, err
	}
	if err := keep(tok); err != nil {
		return AdminTokenChange{}, fmt.Errorf("ensure admin token: %w", err)
	}
	if _, err := s.CreateGeneratedAdminToken(ctx, GeneratedAdminTokenName, tok); err != nil {
		return AdminTokenChange{}, fmt.Errorf("ensure admin token: %w", err)
	}
	return AdminTokenChange{Generated: tok}, nil
}
