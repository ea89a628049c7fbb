// Package auth resolves the bearer tokens of every front end of the daemon
// (the REST API and the MCP server) to a Caller, the one way: the
// configured admin token compared by digest, or a live stored token. It
// also makes sure an admin credential exists at start.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
)

// TokenLookup finds a live stored token by its secret. *store.Store
// satisfies it.
type TokenLookup interface {
	LookupToken(ctx context.Context, token string) (*model.APIToken, error)
}

// Caller is who a request acts as.
type Caller struct {
	// Admin callers act in every workspace; the others in WorkspaceID only.
	Admin       bool
	WorkspaceID int64
	// ReadOnly callers may not change anything.
	ReadOnly bool
	// TokenID is the stored token (0: the configured admin token).
	TokenID int64
}

// May reports whether the caller can act inside workspace id.
func (c Caller) May(id int64) bool { return c.Admin || c.WorkspaceID == id }

// ErrUnauthorized is a missing, malformed, unknown or revoked token.
var ErrUnauthorized = errors.New("missing or invalid bearer token")

// maxTokenLen bounds what is hashed and looked up: generated tokens are 43
// characters, configured ones rarely more than a few dozen.
const maxTokenLen = 512

// Digest is how a configured admin token is held and compared: its
// SHA-256.
func Digest(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// AdminDigest is the digest Authenticate compares a configured admin
// token by: nil when none is configured ("").
func AdminDigest(configured string) []byte {
	if configured == "" {
		return nil
	}
	return Digest(configured)
}

// Authenticate resolves a bearer token: the configured admin token (by
// its digest adminHash, nil when none is configured), or a live stored
// one. A token that is not valid is ErrUnauthorized.
func Authenticate(ctx context.Context, st TokenLookup, adminHash []byte, token string) (Caller, error) {
	if token == "" || len(token) > maxTokenLen {
		return Caller{}, ErrUnauthorized
	}
	// Digests are compared, not the tokens, so the comparison's time does
	// not depend on the configured token's length either.
	if adminHash != nil && subtle.ConstantTimeCompare(Digest(token), adminHash) == 1 {
		return Caller{Admin: true}, nil
	}
	t, err := st.LookupToken(ctx, token)
	if errors.Is(err, model.ErrNotFound) {
		return Caller{}, ErrUnauthorized
	}
	if err != nil {
		return Caller{}, fmt.Errorf("authenticate request: %w", err)
	}
	if t.WorkspaceID == nil {
		return Caller{Admin: true, TokenID: t.ID, ReadOnly: t.ReadOnly}, nil
	}
	return Caller{WorkspaceID: *t.WorkspaceID, TokenID: t.ID, ReadOnly: t.ReadOnly}, nil
}
