package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// listBody is the shape of every unpaginated list.
type listBody[T any] struct {
	Items []T `json:"items"`
}

func (s *Server) createWorkspace(w http.ResponseWriter, r *http.Request) error {
	if err := requireAdmin(r); err != nil {
		return err
	}
	var spec service.WorkspaceSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	ws, err := s.svc.CreateWorkspace(r.Context(), spec)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, ws)
	return nil
}

func (s *Server) listWorkspaces(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	out := []model.Workspace{}
	if p.Admin {
		all, err := s.svc.ListWorkspaces(r.Context())
		if err != nil {
			return err
		}
		out = append(out, all...)
	} else {
		ws, err := s.svc.GetWorkspace(r.Context(), p.WorkspaceID)
		if err != nil && !errors.Is(err, service.ErrNotFound) {
			return err
		}
		if ws != nil {
			out = append(out, *ws)
		}
	}
	writeJSON(w, http.StatusOK, listBody[model.Workspace]{Items: out})
	return nil
}

func (s *Server) getWorkspace(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ws)
	return nil
}

func (s *Server) patchWorkspace(w http.ResponseWriter, r *http.Request) error {
	// Resolved before the body is read: a missing workspace is a 404
	// whatever the body.
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var ch service.WorkspaceChange
	if err := decodeBody(w, r, &ch); err != nil {
		return err
	}
	updated, err := s.svc.UpdateWorkspace(r.Context(), ws.ID, ch)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, updated)
	return nil
}

// workspace resolves the {id} of the path to a workspace the caller may
// act in. A workspace token asking for another workspace gets the same 404
// as for an id that does not exist.
func (s *Server) workspace(r *http.Request) (*model.Workspace, error) {
	id, err := workspaceID(r)
	if err != nil {
		return nil, err
	}
	return s.svc.GetWorkspace(r.Context(), id)
}

// pathID parses a positive id path segment.
func pathID(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return id, err == nil && id > 0
}
