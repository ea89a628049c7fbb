package stories

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Candidate is a stored article that shares a band key with an article
// being placed.
type Candidate struct {
	ArticleID int64
	StoryID   int64
	// At is when the candidate was reported (see Item.At).
	At time.Time
	// Signature is the candidate's stored signature; Decide only reads it.
	Signature *Signature
}

// PerKeyLimit is how many articles one band key contributes to a lookup
// at most: the most recently reported ones. A key that many articles
// share comes from words every article of a workspace has, not from a
// story; capping it keeps the cost of a lookup bounded by
// MaxKeys × PerKeyLimit rows however large the archive, while a real
// near-duplicate shares several keys and is found through the others.
const PerKeyLimit = 32

// Index finds stored articles by band key. The database implements it
// with one statement over a table of (workspace_id, band_key,
// reported_at, article, story) rows indexed in that order, joined to the
// stored signatures: per key, an index range scan newest first with
// LIMIT PerKeyLimit. MemIndex is the same lookup in memory.
type Index interface {
	// Candidates returns, once each, the articles of the workspace
	// reported at or after since that have one of keys: for each key the
	// PerKeyLimit most recently reported at most.
	Candidates(ctx context.Context, workspaceID int64, keys []int64, since time.Time) ([]Candidate, error)
}

// MemIndex is an in-memory Index: per workspace and band key, the
// articles in the order they were reported. A lookup costs a map access
// and a binary search per key plus at most PerKeyLimit postings per key,
// whatever the number of articles held. It is safe for concurrent use.
type MemIndex struct {
	mu         sync.RWMutex
	postings   map[postingKey][]posting
	signatures map[int64]*entry
}

type postingKey struct {
	workspace int64
	key       int64
}

type posting struct {
	at      time.Time
	article int64
}

type entry struct {
	story int64
	at    time.Time
	sig   Signature
}

// NewMemIndex returns an empty index.
func NewMemIndex() *MemIndex {
	return &MemIndex{postings: map[postingKey][]posting{}, signatures: map[int64]*entry{}}
}

// Add stores an article's signature under its band keys.
func (m *MemIndex) Add(workspaceID, articleID, storyID int64, at time.Time, sig Signature) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.signatures[articleID] = &entry{story: storyID, at: at, sig: sig}
	for _, k := range sig.Keys() {
		pk := postingKey{workspaceID, k}
		ps := m.postings[pk]
		// Articles mostly arrive in order: append, else insert in place.
		i := len(ps)
		for i > 0 && ps[i-1].at.After(at) {
			i--
		}
		m.postings[pk] = slices.Insert(ps, i, posting{at: at, article: articleID})
	}
}

// Len is the number of articles held.
func (m *MemIndex) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.signatures)
}

// Candidates implements Index.
func (m *MemIndex) Candidates(_ context.Context, workspaceID int64, keys []int64, since time.Time) ([]Candidate, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Candidate, 0, 2*len(keys))
	seen := make(map[int64]struct{}, 2*len(keys))
	for _, k := range keys {
		ps := m.postings[postingKey{workspaceID, k}]
		i, _ := slices.BinarySearchFunc(ps, since, func(p posting, t time.Time) int { return p.at.Compare(t) })
		ps = ps[i:]
		ps = ps[max(0, len(ps)-PerKeyLimit):]
		for _, p := range slices.Backward(ps) {
			if _, ok := seen[p.article]; ok {
				continue
			}
			seen[p.article] = struct{}{}
			e := m.signatures[p.article]
			out = append(out, Candidate{ArticleID: p.article, StoryID: e.story, At: e.at, Signature: &e.sig})
		}
	}
	return out, nil
}
