package api

import (
	"net/http"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

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
	var spec service.TokenSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	c, err := s.svc.CreateToken(r.Context(), workspaceID, spec)
	if err != nil {
		return err
	}
	t := c.Token
	writeJSON(w, http.StatusCreated, createdToken{
		ID: t.ID, WorkspaceID: workspaceID, Name: t.Name, ReadOnly: t.ReadOnly, CreatedAt: t.CreatedAt, Token: c.Secret,
		Note: service.TokenNote,
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

// revokeAdminToken revokes a stored admin token; the service refuses the
// last admin token that may write when no admin token is configured.
func (s *Server) revokeAdminToken(w http.ResponseWriter, r *http.Request) error {
	if err := requireAdmin(r); err != nil {
		return err
	}
	id, ok := pathID(r, "tokenId")
	if !ok {
		return notFound("token")
	}
	return s.revoke(w, r, 0, id)
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
	toks, err := s.svc.ListTokens(r.Context(), workspaceID)
	if err != nil {
		return err
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
	if err := s.svc.RevokeToken(r.Context(), workspaceID, id, s.adminHash != nil); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, revokedToken{Revoked: true, ID: id})
	return nil
}
