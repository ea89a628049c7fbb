package service_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// memStore keeps workspaces and sources in memory with the store's
// contract: ErrNotFound for a missing row, ErrConflict for a URL already
// in the workspace or a name already taken.
type memStore struct {
	mu         sync.Mutex
	workspaces []model.Workspace
	sources    []model.FeedSource
	// subsDue are the sources whose push subscription was made due, in
	// order.
	subsDue []int64
}

var _ service.Store = (*memStore)(nil)

func (m *memStore) CreateWorkspace(_ context.Context, name string, p model.RelevanceProfile) (*model.Workspace, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.workspaces {
		if w.Name == name {
			return nil, fmt.Errorf("workspace %q: %w", name, model.ErrConflict)
		}
	}
	w := model.Workspace{ID: int64(len(m.workspaces) + 1), Name: name, Profile: p}
	m.workspaces = append(m.workspaces, w)
	return &w, nil
}

func (m *memStore) GetWorkspace(_ context.Context, id int64) (*model.Workspace, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.workspaces {
		if w.ID == id {
			return &w, nil
		}
	}
	return nil, fmt.Errorf("workspace %d: %w", id, model.ErrNotFound)
}

func (m *memStore) ListWorkspaces(context.Context) ([]model.Workspace, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]model.Workspace(nil), m.workspaces...), nil
}

func (m *memStore) SetWorkspaceDecayClass(_ context.Context, id int64, class string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.workspaces {
		if m.workspaces[i].ID == id {
			m.workspaces[i].DecayClass = class
			return nil
		}
	}
	return fmt.Errorf("workspace %d: %w", id, model.ErrNotFound)
}

func (m *memStore) UpdateWorkspace(_ context.Context, id int64, name *string, p *model.RelevanceProfile) (*model.Workspace, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.workspaces {
		if name != nil && w.Name == *name && w.ID != id {
			return nil, fmt.Errorf("workspace %q: %w", *name, model.ErrConflict)
		}
	}
	for i := range m.workspaces {
		if m.workspaces[i].ID != id {
			continue
		}
		if name != nil {
			m.workspaces[i].Name = *name
		}
		if p != nil {
			m.workspaces[i].Profile = *p
		}
		w := m.workspaces[i]
		return &w, nil
	}
	return nil, fmt.Errorf("workspace %d: %w", id, model.ErrNotFound)
}

func (m *memStore) CreateSource(_ context.Context, src *model.FeedSource) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sources {
		if s.WorkspaceID == src.WorkspaceID && s.URL == src.URL {
			return fmt.Errorf("source %s: %w", src.URL, model.ErrConflict)
		}
	}
	src.ID = int64(len(m.sources) + 1)
	m.sources = append(m.sources, *src)
	return nil
}

func (m *memStore) find(workspaceID, id int64) int {
	for i, s := range m.sources {
		if s.ID == id && (workspaceID == 0 || s.WorkspaceID == workspaceID) {
			return i
		}
	}
	return -1
}

func (m *memStore) GetSource(_ context.Context, workspaceID, id int64) (*model.FeedSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := m.find(workspaceID, id); i >= 0 {
		s := m.sources[i]
		return &s, nil
	}
	return nil, fmt.Errorf("source %d: %w", id, model.ErrNotFound)
}

func (m *memStore) ListSources(_ context.Context, workspaceID int64) ([]model.FeedSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []model.FeedSource
	for _, s := range m.sources {
		if workspaceID == 0 || s.WorkspaceID == workspaceID {
			out = append(out, s)
		}
	}
	return out, nil
}

func (m *memStore) UpdateSource(_ context.Context, workspaceID, id int64, p model.SourcePatch) (*model.FeedSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.find(workspaceID, id)
	if i < 0 {
		return nil, fmt.Errorf("source %d: %w", id, model.ErrNotFound)
	}
	s := &m.sources[i]
	if p.Title != nil {
		s.Title = *p.Title
	}
	if p.IsActive != nil {
		s.IsActive = *p.IsActive
	}
	if p.PollingIntervalMinutes != nil {
		s.PollingIntervalMinutes = *p.PollingIntervalMinutes
	}
	if p.TrackChanges != nil {
		s.TrackChanges = *p.TrackChanges
	}
	if p.ScheduleMode != nil {
		s.ScheduleMode = *p.ScheduleMode
	}
	if p.Tier != nil {
		s.ReliabilityTier, s.ReliabilityTierManual = *p.Tier, *p.TierManual
	}
	if p.DecayClass != nil {
		s.DecayClass = nil
		if *p.DecayClass != "" {
			c := *p.DecayClass
			s.DecayClass = &c
		}
	}
	out := *s
	return &out, nil
}

func (m *memStore) DeleteSource(_ context.Context, workspaceID, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := m.find(workspaceID, id); i >= 0 {
		m.sources = append(m.sources[:i], m.sources[i+1:]...)
	}
	return nil
}

func (m *memStore) SubscriptionDueNow(_ context.Context, sourceID int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subsDue = append(m.subsDue, sourceID)
	return nil
}

func (m *memStore) SourcesMentioning(_ context.Context, workspaceID int64, parts ...string) ([]model.FeedSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []model.FeedSource
	for _, s := range m.sources {
		if s.WorkspaceID != workspaceID {
			continue
		}
		for _, p := range parts {
			if strings.Contains(strings.ToLower(s.URL), strings.ToLower(p)) {
				out = append(out, s)
				break
			}
		}
	}
	return out, nil
}

// fakeValidator answers every URL with the same result and counts calls.
type fakeValidator struct {
	mu        sync.Mutex
	title     string
	items     int
	site      string
	links     []string
	err       error
	fetched   []string
	unbounded int // calls whose context had no deadline
}

func (v *fakeValidator) record(ctx context.Context, url string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.fetched = append(v.fetched, url)
	if _, ok := ctx.Deadline(); !ok {
		v.unbounded++
	}
}

func (v *fakeValidator) calls() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.fetched)
}

func (v *fakeValidator) ValidateFeed(ctx context.Context, url string) (service.FeedCheck, error) {
	v.record(ctx, url)
	return service.FeedCheck{Title: v.title, ItemCount: v.items, SiteURL: v.site}, v.err
}

func (v *fakeValidator) ValidatePage(ctx context.Context, url string) (string, []string, error) {
	v.record(ctx, url)
	return v.title, v.links, v.err
}

// fakePoller answers a fixed outcome or error and records its calls.
type fakePoller struct {
	out   model.PollOutcome
	err   error
	calls [][2]int64
}

func (p *fakePoller) PollNow(_ context.Context, workspaceID, sourceID int64) (model.PollOutcome, error) {
	p.calls = append(p.calls, [2]int64{workspaceID, sourceID})
	return p.out, p.err
}
