package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/store"
)

type workspaceCreateRequest struct {
	Name             string          `json:"name" validate:"required,max=200"`
	RelevanceProfile *profileRequest `json:"relevance_profile"`
}

type workspacePatchRequest struct {
	Name             *string         `json:"name" validate:"omitnil,required,max=200"`
	RelevanceProfile *profileRequest `json:"relevance_profile"`
}

// profileRequest is a relevance profile as a request sends it: a profile
// without a threshold (or no profile at all) gets store.DefaultThreshold,
// the same default the CLI uses.
type profileRequest struct {
	Keywords   []store.Keyword `json:"keywords" validate:"max=500,dive"`
	Exclusions []string        `json:"exclusions" validate:"max=500,dive,required,max=200"`
	Threshold  *float64        `json:"threshold" validate:"omitnil,gte=0,lte=1"`
}

// profile is the stored form, with the default threshold filled in and
// terms trimmed; nil for nil.
func (p *profileRequest) profile() *store.RelevanceProfile {
	if p == nil {
		return nil
	}
	out := &store.RelevanceProfile{Keywords: p.Keywords, Exclusions: p.Exclusions, Threshold: store.DefaultThreshold}
	if p.Threshold != nil {
		out.Threshold = *p.Threshold
	}
	normaliseProfile(out)
	p.Keywords, p.Exclusions = out.Keywords, out.Exclusions // validated trimmed
	return out
}

// listBody is the shape of every unpaginated list.
type listBody[T any] struct {
	Items []T `json:"items"`
}

// normaliseProfile trims terms and exclusions (so blank ones fail
// "required") and turns absent lists into empty ones.
func normaliseProfile(p *store.RelevanceProfile) {
	if p == nil {
		return
	}
	if p.Keywords == nil {
		p.Keywords = []store.Keyword{}
	}
	if p.Exclusions == nil {
		p.Exclusions = []string{}
	}
	for i := range p.Keywords {
		p.Keywords[i].Term = strings.TrimSpace(p.Keywords[i].Term)
	}
	for i := range p.Exclusions {
		p.Exclusions[i] = strings.TrimSpace(p.Exclusions[i])
	}
}

func viewWorkspace(w store.Workspace) store.Workspace {
	normaliseProfile(&w.Profile)
	return w
}

func (s *Server) createWorkspace(w http.ResponseWriter, r *http.Request) error {
	if err := requireAdmin(r); err != nil {
		return err
	}
	var req workspaceCreateRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.RelevanceProfile == nil {
		req.RelevanceProfile = &profileRequest{}
	}
	profile := req.RelevanceProfile.profile()
	if err := s.check(&req, nil); err != nil {
		return err
	}
	ws, err := s.store.CreateWorkspace(r.Context(), req.Name, *profile)
	if errors.Is(err, store.ErrConflict) {
		return &apiError{Status: http.StatusConflict, Message: "a workspace named " + strconv.Quote(req.Name) + " already exists",
			Fields: map[string]string{"name": "is taken"}}
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, viewWorkspace(*ws))
	return nil
}

func (s *Server) listWorkspaces(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	out := []store.Workspace{}
	if p.admin {
		all, err := s.store.ListWorkspaces(r.Context())
		if err != nil {
			return err
		}
		for _, ws := range all {
			out = append(out, viewWorkspace(ws))
		}
	} else {
		ws, err := s.store.GetWorkspace(r.Context(), p.workspaceID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if ws != nil {
			out = append(out, viewWorkspace(*ws))
		}
	}
	writeJSON(w, http.StatusOK, listBody[store.Workspace]{Items: out})
	return nil
}

func (s *Server) getWorkspace(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewWorkspace(*ws))
	return nil
}

func (s *Server) patchWorkspace(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var req workspacePatchRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Name == nil && req.RelevanceProfile == nil {
		return badRequest("nothing to change: send name and/or relevance_profile", nil)
	}
	if req.Name != nil {
		n := strings.TrimSpace(*req.Name)
		req.Name = &n
	}
	profile := req.RelevanceProfile.profile()
	if err := s.check(&req, nil); err != nil {
		return err
	}
	updated, err := s.store.UpdateWorkspace(r.Context(), ws.ID, req.Name, profile)
	if errors.Is(err, store.ErrConflict) {
		return &apiError{Status: http.StatusConflict, Message: "a workspace named " + strconv.Quote(*req.Name) + " already exists",
			Fields: map[string]string{"name": "is taken"}}
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewWorkspace(*updated))
	return nil
}

// workspace resolves the {id} of the path to a workspace the caller may
// act in. A workspace token asking for another workspace gets the same 404
// as for an id that does not exist.
func (s *Server) workspace(r *http.Request) (*store.Workspace, error) {
	id, ok := pathID(r, "id")
	if !ok || !principalFrom(r.Context()).may(id) {
		return nil, notFound("workspace")
	}
	ws, err := s.store.GetWorkspace(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("workspace")
	}
	return ws, err
}

// pathID parses a positive id path segment.
func pathID(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return id, err == nil && id > 0
}
