package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/analysis/relevance"
	"github.com/feedpoller/feedpoller/model"
)

// Profiles gives the scorer of a workspace's relevance profile
// (ProfileCache over the store's workspaces).
type Profiles interface {
	Scorer(ctx context.Context, workspaceID int64) (*relevance.Scorer, error)
}

// score rates each article against the workspace's profile, by its title
// and its Markdown, and records the score and the terms it matched.
func score(sc *relevance.Scorer, items []item) {
	for i := range items {
		a := &items[i].art
		r := sc.Score(a.Title, a.ContentMarkdown)
		a.RelevanceScore = r.Score
		a.MatchedTerms = r.Matched
		items[i].rel = r
	}
}

// Workspaces reads a workspace with its relevance profile
// (store.Store.GetWorkspace).
type Workspaces interface {
	GetWorkspace(ctx context.Context, id int64) (*model.Workspace, error)
}

// ProfileCache keeps each workspace's compiled scorer for TTL: batches of
// one workspace's many sources share it, and a profile edited over the
// API takes effect within the TTL. The zero TTL reads the profile anew
// every time. Set the fields before first use; it is safe for concurrent
// use.
type ProfileCache struct {
	Workspaces Workspaces
	TTL        time.Duration

	mu   sync.Mutex
	byWS map[int64]cachedScorer
}

type cachedScorer struct {
	scorer *relevance.Scorer
	at     time.Time
}

// maxCachedProfiles bounds the cache; past it, it starts afresh.
const maxCachedProfiles = 10000

// Scorer returns the workspace's scorer, compiled from its profile at most
// TTL ago.
func (c *ProfileCache) Scorer(ctx context.Context, workspaceID int64) (*relevance.Scorer, error) {
	c.mu.Lock()
	if e, ok := c.byWS[workspaceID]; ok && time.Since(e.at) < c.TTL {
		c.mu.Unlock()
		return e.scorer, nil
	}
	c.mu.Unlock()
	ws, err := c.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	sc := relevance.NewScorer(ws.Profile)
	c.mu.Lock()
	if c.byWS == nil || len(c.byWS) > maxCachedProfiles {
		c.byWS = map[int64]cachedScorer{}
	}
	c.byWS[workspaceID] = cachedScorer{scorer: sc, at: time.Now()}
	c.mu.Unlock()
	return sc, nil
}

// promote decides which articles become content items: those the
// workspace's profile finds relevant (not excluded, at or above its
// threshold). The content items are inserted by the same save as the
// articles, which skips one whose content hash the workspace already
// promoted (the cross-source exact-duplicate guard) and counts it as a
// duplicate.
func promote(sc *relevance.Scorer, items []item) {
	for i := range items {
		items[i].promote = sc.Relevant(items[i].rel)
	}
}
