package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/store"
)

type tokenCreateRequest struct {
	Name string `json:"name" validate:"required,max=200"`
}

// createdToken is the only answer that ever carries a token's secret.
type createdToken struct {
	ID          int64     `json:"id"`
	WorkspaceID int64     `json:"workspace_id"`
	Name        string    `json:"name"`
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
	var req tokenCreateRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	if err := s.check(&req, nil); err != nil {
		return err
	}
	secret, err := NewToken()
	if err != nil {
		return err
	}
	t, err := s.store.CreateToken(r.Context(), &ws.ID, req.Name, secret)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, createdToken{
		ID: t.ID, WorkspaceID: ws.ID, Name: t.Name, CreatedAt: t.CreatedAt, Token: secret,
		Note: "store this token now: only its hash is kept, it cannot be shown again",
	})
	return nil
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	toks, err := s.store.ListTokens(r.Context(), ws.ID)
	if err != nil {
		return err
	}
	if toks == nil {
		toks = []store.APIToken{}
	}
	writeJSON(w, http.StatusOK, listBody[store.APIToken]{Items: toks})
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
	if err := s.store.RevokeToken(r.Context(), ws.ID, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFound("token")
		}
		return err
	}
	writeJSON(w, http.StatusOK, revokedToken{Revoked: true, ID: id})
	return nil
}
