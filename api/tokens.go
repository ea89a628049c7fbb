package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/model"
)

type tokenCreateRequest struct {
	Name     string `json:"name" validate:"required,max=200"`
	ReadOnly bool   `json:"read_only"`
}

// createdToken is the only answer that ever carries a token's secret.
type createdToken struct {
	ID          int64     `json:"id"`
	WorkspaceID *int64    `json:"workspace_id"` // nil: an admin token
	Name        string    `json:"name"`
	ReadOnly    bool      `json:"read_only"`
	CreatedAt   time.Time `json:"created_at"`
	Token       string    `json:"token"`
	Note        string    `json:"note"`
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	if err := requireAdmin(r); err != nil {
		return err
	}
	return s.issueToken(w, r, &ws.ID)
}

// issueToken creates a token of the workspace (nil: an admin token) from
// the request's name and answers its secret, once.
func (s *Server) issueToken(w http.ResponseWriter, r *http.Request, workspaceID *int64) error {
	var req tokenCreateRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	if err := s.rules.Check(&req, nil); err != nil {
		return err
	}
	secret, err := auth.NewToken()
	if err != nil {
		return err
	}
	create := s.store.CreateToken
	if req.ReadOnly {
		create = s.store.CreateReadOnlyToken
	}
	t, err := create(r.Context(), workspaceID, req.Name, secret)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, createdToken{
		ID: t.ID, WorkspaceID: workspaceID, Name: t.Name, ReadOnly: t.ReadOnly, CreatedAt: t.CreatedAt, Token: secret,
		Note: "store this token now: only its hash is kept, it cannot be shown again",
	})
	return nil
}

// createAdminToken makes another admin token: the way to replace one, or
// to hand separate admin credentials out and revoke them one by one.
func (s *Server) createAdminToken(w http.ResponseWriter, r *http.Request) error {
	if err := requireAdmin(r); err != nil {
		return err
	}
	return s.issueToken(w, r, nil)
}

// listAdminTokens lists the stored admin tokens (never their secrets). The
// configured FEEDPOLLER_ADMIN_TOKEN is not stored and not listed.
func (s *Server) listAdminTokens(w http.ResponseWriter, r *http.Request) error {
	if err := requireAdmin(r); err != nil {
		return err
	}
	return s.writeTokens(w, r, 0)
}

// revokeAdminToken revokes a stored admin token. Without a configured
// admin token it refuses to revoke the last live admin token that may
// write (read-only ones cannot make another): that would leave the API
// with no admin at all.
func (s *Server) revokeAdminToken(w http.ResponseWriter, r *http.Request) error {
	if err := requireAdmin(r); err != nil {
		return err
	}
	id, ok := pathID(r, "tokenId")
	if !ok {
		return notFound("token")
	}
	err := s.store.RevokeAdminToken(r.Context(), id, s.adminHash == nil)
	switch {
	case errors.Is(err, model.ErrLastAdmin):
		return newError(http.StatusConflict, "this is the last admin token that may write, and FEEDPOLLER_ADMIN_TOKEN is not set: "+
			"create another admin token first (POST /api/intelligence/tokens)")
	case errors.Is(err, model.ErrNotFound):
		return notFound("token")
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, revokedToken{Revoked: true, ID: id})
	return nil
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	return s.writeTokens(w, r, ws.ID)
}

// writeTokens answers the tokens of a workspace (0: the admin tokens).
func (s *Server) writeTokens(w http.ResponseWriter, r *http.Request, workspaceID int64) error {
	toks, err := s.store.ListTokens(r.Context(), workspaceID)
	if err != nil {
		return err
	}
	if toks == nil {
		toks = []model.APIToken{}
	}
	writeJSON(w, http.StatusOK, listBody[model.APIToken]{Items: toks})
	return nil
}

type revokedToken struct {
	Revoked bool  `json:"revoked"`
	ID      int64 `json:"id"`
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	id, ok := pathID(r, "tokenId")
	if !ok {
		return notFound("token")
	}
	return s.revoke(w, r, ws.ID, id)
}

// revoke revokes a live token of the workspace (0: an admin token).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request, workspaceID, id int64) error {
	if err := s.store.RevokeToken(r.Context(), workspaceID, id); err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return notFound("token")
		}
		return err
	}
	writeJSON(w, http.StatusOK, revokedToken{Revoked: true, ID: id})
	return nil
}
