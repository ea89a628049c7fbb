package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
)

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

// AdminTokenStore is what EnsureAdminToken needs. *store.Store satisfies
// it.
type AdminTokenStore interface {
	RevokeGeneratedAdminTokens(ctx context.Context) (int64, error)
	HasAdminToken(ctx context.Context) (bool, error)
	CreateGeneratedAdminToken(ctx context.Context, name, token string) (*model.APIToken, error)
}

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
