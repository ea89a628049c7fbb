package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// APIToken is a stored bearer token; only its SHA-256 is kept.
type APIToken struct {
	ID          int64      `db:"id" json:"id"`
	WorkspaceID *int64     `db:"workspace_id" json:"workspace_id"` // nil: admin
	Name        string     `db:"name" json:"name"`
	CreatedAt   time.Time  `db:"created_at" json:"created_at"`
	RevokedAt   *time.Time `db:"revoked_at" json:"revoked_at,omitempty"`
}

// HashToken is how tokens are stored and looked up.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateToken stores the hash of a new token.
func (s *Store) CreateToken(ctx context.Context, workspaceID *int64, name, token string) (*APIToken, error) {
	t := APIToken{WorkspaceID: workspaceID, Name: name, CreatedAt: now()}
	err := s.db.GetContext(ctx, &t.ID, s.q(`INSERT INTO api_tokens (workspace_id, name, token_hash, created_at)
		VALUES (?, ?, ?, ?) RETURNING id`), workspaceID, name, HashToken(token), t.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("create token %q: %w", name, err)
	}
	return &t, nil
}

// LookupToken finds the live token with this secret.
func (s *Store) LookupToken(ctx context.Context, token string) (*APIToken, error) {
	var t APIToken
	err := s.db.GetContext(ctx, &t, s.q(`SELECT id, workspace_id, name, created_at, revoked_at FROM api_tokens
		WHERE token_hash = ? AND revoked_at IS NULL`), HashToken(token))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("look up token: %w", err)
	}
	return &t, nil
}

// ListTokens lists a workspace's tokens (workspaceID 0: admin tokens).
func (s *Store) ListTokens(ctx context.Context, workspaceID int64) ([]APIToken, error) {
	var out []APIToken
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT id, workspace_id, name, created_at, revoked_at FROM api_tokens
		WHERE (? = 0 AND workspace_id IS NULL) OR workspace_id = ? ORDER BY id`), workspaceID, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken revokes a workspace's token.
func (s *Store) RevokeToken(ctx context.Context, workspaceID, id int64) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND workspace_id = ? AND revoked_at IS NULL`),
		now(), id, workspaceID)
	if err != nil {
		return fmt.Errorf("revoke token %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("token %d: %w", id, ErrNotFound)
	}
	return nil
}

// HasAdminToken reports whether an admin token was ever stored.
func (s *Store) HasAdminToken(ctx context.Context) (bool, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM api_tokens WHERE workspace_id IS NULL AND revoked_at IS NULL`); err != nil {
		return false, fmt.Errorf("count admin tokens: %w", err)
	}
	return n > 0, nil
}
