package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// CreateConsoleSession stores a new session, pruning the expired ones
// first so the table holds only live sessions and those of the last
// sign-in's lifetime.
func (s *Store) CreateConsoleSession(ctx context.Context, idHash, sealed string, expires time.Time) error {
	t := now()
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM console_sessions WHERE `+s.asTime("expires_at")+` <= `+s.asTime("?")), t); err != nil {
		return fmt.Errorf("prune console sessions: %w", err)
	}
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO console_sessions (id_hash, sealed, created_at, expires_at) VALUES (?, ?, ?, ?)`),
		idHash, sealed, t, expires.UTC())
	if err != nil {
		return fmt.Errorf("create console session: %w", err)
	}
	return nil
}

// ConsoleSession reads a live session by the hash of its id; a missing or
// expired one is model.ErrNotFound.
func (s *Store) ConsoleSession(ctx context.Context, idHash string) (*model.ConsoleSession, error) {
	var cs model.ConsoleSession
	err := s.db.GetContext(ctx, &cs, s.q(`SELECT id_hash, sealed, flash, created_at, expires_at FROM console_sessions
		WHERE id_hash = ? AND `+s.asTime("expires_at")+` > `+s.asTime("?")), idHash, now())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("console session: %w", model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read console session: %w", err)
	}
	return &cs, nil
}

// SetConsoleFlash stores the message the session's next page shows (""
// once it was shown).
func (s *Store) SetConsoleFlash(ctx context.Context, idHash, flash string) error {
	if _, err := s.db.ExecContext(ctx, s.q(`UPDATE console_sessions SET flash = ? WHERE id_hash = ?`), flash, idHash); err != nil {
		return fmt.Errorf("set console flash: %w", err)
	}
	return nil
}

// DeleteConsoleSession ends a session (sign-out); one already gone is not
// an error.
func (s *Store) DeleteConsoleSession(ctx context.Context, idHash string) error {
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM console_sessions WHERE id_hash = ?`), idHash); err != nil {
		return fmt.Errorf("delete console session: %w", err)
	}
	return nil
}
