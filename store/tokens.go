package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// writableAdmin is the condition "a live admin token that may write".
const writableAdmin = `workspace_id IS NULL AND revoked_at IS NULL AND read_only = FALSE`

const tokenColumns = `id, workspace_id, name, generated, read_only, created_at, revoked_at`

// HashToken is how tokens are stored and looked up.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateToken stores the hash of a new token of a workspace, or an admin
// token when workspaceID is nil.
func (s *Store) CreateToken(ctx context.Context, workspaceID *int64, name, token string) (*model.APIToken, error) {
	return s.createToken(ctx, model.APIToken{WorkspaceID: workspaceID, Name: name}, token)
}

// CreateReadOnlyToken stores the hash of a new token that may only read:
// of a workspace, or of every workspace when workspaceID is nil.
func (s *Store) CreateReadOnlyToken(ctx context.Context, workspaceID *int64, name, token string) (*model.APIToken, error) {
	return s.createToken(ctx, model.APIToken{WorkspaceID: workspaceID, Name: name, ReadOnly: true}, token)
}

// CreateGeneratedAdminToken stores the hash of the admin token generated at
// first start, marked so that configuring FEEDPOLLER_ADMIN_TOKEN later
// revokes it (RevokeGeneratedAdminTokens).
func (s *Store) CreateGeneratedAdminToken(ctx context.Context, name, token string) (*model.APIToken, error) {
	return s.createToken(ctx, model.APIToken{Name: name, Generated: true}, token)
}

// createToken stores t (its scope, name and flags) under the token's hash.
func (s *Store) createToken(ctx context.Context, t model.APIToken, token string) (*model.APIToken, error) {
	t.CreatedAt = now()
	err := s.db.GetContext(ctx, &t.ID, s.q(`INSERT INTO api_tokens (workspace_id, name, token_hash, generated, read_only, created_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`), t.WorkspaceID, t.Name, HashToken(token), t.Generated, t.ReadOnly, t.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("create token %q: %w", t.Name, err)
	}
	return &t, nil
}

// LookupToken finds the live token with this secret.
func (s *Store) LookupToken(ctx context.Context, token string) (*model.APIToken, error) {
	var t model.APIToken
	err := s.db.GetContext(ctx, &t, s.q(`SELECT `+tokenColumns+` FROM api_tokens
		WHERE token_hash = ? AND revoked_at IS NULL`), HashToken(token))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("look up token: %w", err)
	}
	return &t, nil
}

// ListTokens lists a workspace's tokens (workspaceID 0: admin tokens),
// revoked ones included, oldest first.
func (s *Store) ListTokens(ctx context.Context, workspaceID int64) ([]model.APIToken, error) {
	var out []model.APIToken
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT `+tokenColumns+` FROM api_tokens
		WHERE (? = 0 AND workspace_id IS NULL) OR workspace_id = ? ORDER BY id`), workspaceID, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// AllTokens lists every token, admin and workspace, oldest first.
func (s *Store) AllTokens(ctx context.Context) ([]model.APIToken, error) {
	var out []model.APIToken
	if err := s.db.SelectContext(ctx, &out, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY id`); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken revokes a live token of a workspace (workspaceID 0: an admin
// token). A token that does not exist there, or is revoked already, is
// model.ErrNotFound.
func (s *Store) RevokeToken(ctx context.Context, workspaceID, id int64) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE api_tokens SET revoked_at = ?
		WHERE id = ? AND ((? = 0 AND workspace_id IS NULL) OR workspace_id = ?) AND revoked_at IS NULL`),
		now(), id, workspaceID, workspaceID)
	return byID(res, err, "revoke token", "token", id)
}

// RevokeAdminToken revokes a live admin token. With keepWritable it
// refuses, with model.ErrLastAdmin, to revoke the last live admin token that
// may write: read-only admin tokens do not count, since they could not
// create another one. The live writable tokens are locked while they are
// counted (FOR UPDATE on PostgreSQL, the write lock on SQLite), so two
// concurrent revocations of the last two cannot both pass.
func (s *Store) RevokeAdminToken(ctx context.Context, id int64, keepWritable bool) error {
	return s.inTx(ctx, fmt.Sprintf("revoke token %d", id), func(tx *sqlx.Tx) error {
		if keepWritable {
			var ids []int64
			if err := tx.SelectContext(ctx, &ids, `SELECT id FROM api_tokens WHERE `+writableAdmin+` ORDER BY id`+s.d.forUpdate()); err != nil {
				return err
			}
			if len(ids) == 1 && ids[0] == id {
				return model.ErrLastAdmin
			}
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE api_tokens SET revoked_at = ?
			WHERE id = ? AND workspace_id IS NULL AND revoked_at IS NULL`), now(), id)
		return byID(res, err, "revoke token", "token", id)
	})
}

// RevokeAnyToken revokes a live token whatever it belongs to: the
// operator's `feedpoller tokens revoke` on the host.
func (s *Store) RevokeAnyToken(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`), now(), id)
	return byID(res, err, "revoke token", "token", id)
}

// RevokeGeneratedAdminTokens revokes the admin tokens generated at first
// start and returns how many were live.
func (s *Store) RevokeGeneratedAdminTokens(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE api_tokens SET revoked_at = ?
		WHERE workspace_id IS NULL AND generated = TRUE AND revoked_at IS NULL`), now())
	if err != nil {
		return 0, fmt.Errorf("revoke generated admin tokens: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// CountAdminTokens counts the live admin tokens that may write.
func (s *Store) CountAdminTokens(ctx context.Context) (int, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM api_tokens WHERE `+writableAdmin); err != nil {
		return 0, fmt.Errorf("count admin tokens: %w", err)
	}
	return n, nil
}

// HasAdminToken reports whether a live admin token that may write is
// stored: read-only admin tokens alone leave nobody to administer.
func (s *Store) HasAdminToken(ctx context.Context) (bool, error) {
	n, err := s.CountAdminTokens(ctx)
	return n > 0, err
}
