package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/dberr"
)

type workspaceRow struct {
	model.Workspace
	ProfileJSON string `db:"relevance_profile"`
}

func (r workspaceRow) decode() (model.Workspace, error) {
	w := r.Workspace
	if r.ProfileJSON != "" {
		if err := json.Unmarshal([]byte(r.ProfileJSON), &w.Profile); err != nil {
			return w, fmt.Errorf("decode relevance profile of workspace %d: %w", w.ID, err)
		}
	}
	return w, nil
}

// CreateWorkspace stores a new workspace; a taken name is ErrConflict.
func (s *Store) CreateWorkspace(ctx context.Context, name string, p model.RelevanceProfile) (*model.Workspace, error) {
	pj, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode relevance profile: %w", err)
	}
	w := model.Workspace{Name: name, Profile: p, CreatedAt: now(), DecayClass: defaultDecayClass}
	err = s.db.GetContext(ctx, &w.ID, s.q(`INSERT INTO workspaces (name, relevance_profile, created_at) VALUES (?, ?, ?) RETURNING id`),
		name, string(pj), w.CreatedAt)
	if dberr.IsUniqueViolation(err) {
		return nil, fmt.Errorf("workspace %q: %w", name, model.ErrConflict)
	}
	if err != nil {
		return nil, fmt.Errorf("create workspace %q: %w", name, err)
	}
	return &w, nil
}

// GetWorkspace reads one workspace.
func (s *Store) GetWorkspace(ctx context.Context, id int64) (*model.Workspace, error) {
	var r workspaceRow
	err := s.db.GetContext(ctx, &r, s.q(`SELECT id, name, relevance_profile, created_at, decay_class FROM workspaces WHERE id = ?`), id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("workspace %d: %w", id, model.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get workspace %d: %w", id, err)
	}
	w, err := r.decode()
	return &w, err
}

// ListWorkspaces returns every workspace, oldest first.
func (s *Store) ListWorkspaces(ctx context.Context) ([]model.Workspace, error) {
	var rows []workspaceRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT id, name, relevance_profile, created_at, decay_class FROM workspaces ORDER BY id`); err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	out := make([]model.Workspace, 0, len(rows))
	for _, r := range rows {
		w, err := r.decode()
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// UpdateWorkspace changes the name and/or the profile (nil: unchanged).
func (s *Store) UpdateWorkspace(ctx context.Context, id int64, name *string, p *model.RelevanceProfile) (*model.Workspace, error) {
	if name != nil {
		_, err := s.db.ExecContext(ctx, s.q(`UPDATE workspaces SET name = ? WHERE id = ?`), *name, id)
		if dberr.IsUniqueViolation(err) {
			return nil, fmt.Errorf("workspace %q: %w", *name, model.ErrConflict)
		}
		if err != nil {
			return nil, fmt.Errorf("rename workspace %d: %w", id, err)
		}
	}
	if p != nil {
		pj, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode relevance profile: %w", err)
		}
		if _, err := s.db.ExecContext(ctx, s.q(`UPDATE workspaces SET relevance_profile = ? WHERE id = ?`), string(pj), id); err != nil {
			return nil, fmt.Errorf("update profile of workspace %d: %w", id, err)
		}
	}
	return s.GetWorkspace(ctx, id)
}
