package api

import (
	"context"

	"github.com/feedpoller/feedpoller/model"
)

// TokenLookup finds a live stored token by its secret. *store.Store
// satisfies it.
type TokenLookup interface {
	LookupToken(ctx context.Context, token string) (*model.APIToken, error)
}

// Caller is who a request acts as, for the other front ends of the daemon
// (the MCP server) that accept the API's bearer tokens.
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

func (p principal) caller() Caller {
	return Caller{Admin: p.admin, WorkspaceID: p.workspaceID, ReadOnly: p.readOnly, TokenID: p.tokenID}
}

// ErrUnauthorized is a missing, malformed, unknown or revoked token.
var ErrUnauthorized error = errUnauthorized

// Authenticate resolves a bearer token exactly as the API does:
// adminToken is FEEDPOLLER_ADMIN_TOKEN ("" when not set). A token that is
// not valid is ErrUnauthorized.
func Authenticate(ctx context.Context, st TokenLookup, adminToken, token string) (Caller, error) {
	var adminHash []byte
	if adminToken != "" {
		adminHash = tokenDigest(adminToken)
	}
	p, err := authenticateToken(ctx, st, adminHash, token)
	return p.caller(), err
}
