package service

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/model"
)

// WorkspaceSpec is a new workspace as a caller asks for it.
type WorkspaceSpec struct {
	Name string `json:"name" validate:"required,max=200"`
	// RelevanceProfile nil is an empty profile with the default threshold.
	RelevanceProfile *ProfileSpec `json:"relevance_profile"`
	// DecayClass is how fast its articles age for rank: fast, moderate
	// (nil or "") or stable; a source may override it.
	DecayClass *string `json:"decay_class"`
}

// WorkspaceChange lists what an update changes; a nil field is left as
// it is. A profile given replaces the whole stored one.
type WorkspaceChange struct {
	Name             *string      `json:"name" validate:"omitnil,required,max=200"`
	RelevanceProfile *ProfileSpec `json:"relevance_profile"`
	// DecayClass "" is moderate, the default.
	DecayClass *string `json:"decay_class"`
}

// ProfileSpec is a relevance profile as a caller gives it: without a
// threshold it gets Options.DefaultThreshold.
type ProfileSpec struct {
	Keywords   []model.Keyword `json:"keywords" validate:"max=500,dive"`
	Exclusions []string        `json:"exclusions" validate:"max=500,dive,required,max=200"`
	Threshold  *float64        `json:"threshold" validate:"omitnil,gte=0,lte=1"`
}

// profile is the stored form of p, with the default threshold filled in
// and terms trimmed (so blank ones fail "required" when p is checked
// after); nil for nil.
func (s *Service) profile(p *ProfileSpec) *model.RelevanceProfile {
	if p == nil {
		return nil
	}
	out := &model.RelevanceProfile{Keywords: p.Keywords, Exclusions: p.Exclusions, Threshold: s.opts.DefaultThreshold}
	if p.Threshold != nil {
		out.Threshold = *p.Threshold
	}
	normaliseProfile(out)
	p.Keywords, p.Exclusions = out.Keywords, out.Exclusions
	return out
}

// normaliseProfile trims terms and exclusions and turns absent lists into
// empty ones.
func normaliseProfile(p *model.RelevanceProfile) {
	if p.Keywords == nil {
		p.Keywords = []model.Keyword{}
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

// view is a workspace as every caller sees it: lists present, even empty.
func view(w *model.Workspace) *model.Workspace {
	normaliseProfile(&w.Profile)
	return w
}

func nameTaken(name string) *Error {
	return &Error{Kind: ErrConflict, Message: "a workspace named " + strconv.Quote(name) + " already exists",
		Fields: map[string]string{"name": "is taken"}}
}

// CreateWorkspace checks spec and stores a new workspace.
func (s *Service) CreateWorkspace(ctx context.Context, spec WorkspaceSpec) (*model.Workspace, error) {
	spec.Name = strings.TrimSpace(spec.Name)
	if spec.RelevanceProfile == nil {
		spec.RelevanceProfile = &ProfileSpec{}
	}
	profile := s.profile(spec.RelevanceProfile)
	extra := map[string]string{}
	checkDecayClass(spec.DecayClass, extra)
	if err := s.rules.Check(&spec, extra); err != nil {
		return nil, err
	}
	ws, err := s.opts.Store.CreateWorkspace(ctx, spec.Name, *profile)
	if errors.Is(err, model.ErrConflict) {
		return nil, nameTaken(spec.Name)
	}
	if err != nil {
		return nil, err
	}
	if spec.DecayClass != nil && *spec.DecayClass != "" && *spec.DecayClass != ws.DecayClass {
		if err := s.opts.Store.SetWorkspaceDecayClass(ctx, ws.ID, *spec.DecayClass); err != nil {
			return nil, err
		}
		ws.DecayClass = *spec.DecayClass
	}
	return view(ws), nil
}

// GetWorkspace reads one workspace.
func (s *Service) GetWorkspace(ctx context.Context, id int64) (*model.Workspace, error) {
	if id <= 0 {
		return nil, notFound("workspace")
	}
	ws, err := s.opts.Store.GetWorkspace(ctx, id)
	if errors.Is(err, model.ErrNotFound) {
		return nil, notFound("workspace")
	}
	if err != nil {
		return nil, err
	}
	return view(ws), nil
}

// ListWorkspaces returns every workspace.
func (s *Service) ListWorkspaces(ctx context.Context) ([]model.Workspace, error) {
	all, err := s.opts.Store.ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	for i := range all {
		view(&all[i])
	}
	return all, nil
}

// UpdateWorkspace renames a workspace and/or replaces its profile.
func (s *Service) UpdateWorkspace(ctx context.Context, id int64, ch WorkspaceChange) (*model.Workspace, error) {
	if _, err := s.GetWorkspace(ctx, id); err != nil {
		return nil, err
	}
	if ch.Name == nil && ch.RelevanceProfile == nil && ch.DecayClass == nil {
		return nil, invalidf(nil, "nothing to change: send one or more of name, relevance_profile, decay_class")
	}
	ch.Name = trimmed(ch.Name)
	profile := s.profile(ch.RelevanceProfile)
	extra := map[string]string{}
	checkDecayClass(ch.DecayClass, extra)
	if err := s.rules.Check(&ch, extra); err != nil {
		return nil, err
	}
	if ch.DecayClass != nil {
		class := *ch.DecayClass
		if class == "" {
			class = string(model.DefaultDecayClass)
		}
		if err := s.opts.Store.SetWorkspaceDecayClass(ctx, id, class); err != nil {
			return nil, err
		}
	}
	updated, err := s.opts.Store.UpdateWorkspace(ctx, id, ch.Name, profile)
	if errors.Is(err, model.ErrConflict) {
		return nil, nameTaken(*ch.Name)
	}
	if errors.Is(err, model.ErrNotFound) {
		return nil, notFound("workspace")
	}
	if err != nil {
		return nil, err
	}
	return view(updated), nil
}
