package poller

import (
	"context"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/poller/relevance"
	"github.com/feedpoller/feedpoller/store"
)

// profileCache keeps each workspace's compiled scorer for a short while:
// polls of one workspace's many sources share it, and a profile edited over
// the API takes effect within the TTL.
type profileCache struct {
	store *store.Store
	ttl   time.Duration
	mu    sync.Mutex
	byWS  map[int64]cachedScorer
}

type cachedScorer struct {
	scorer *relevance.Scorer
	at     time.Time
}

func newProfileCache(s *store.Store, ttl time.Duration) *profileCache {
	return &profileCache{store: s, ttl: ttl, byWS: map[int64]cachedScorer{}}
}

func (c *profileCache) scorer(ctx context.Context, workspaceID int64) (*relevance.Scorer, error) {
	c.mu.Lock()
	if e, ok := c.byWS[workspaceID]; ok && time.Since(e.at) < c.ttl {
		c.mu.Unlock()
		return e.scorer, nil
	}
	c.mu.Unlock()
	ws, err := c.store.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	sc := relevance.NewScorer(ws.Profile)
	c.mu.Lock()
	if len(c.byWS) > 10000 {
		c.byWS = map[int64]cachedScorer{}
	}
	c.byWS[workspaceID] = cachedScorer{scorer: sc, at: time.Now()}
	c.mu.Unlock()
	return sc, nil
}
