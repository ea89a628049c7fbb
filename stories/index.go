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
	At        time.Time
	Signature Signature
}

// Index finds stored articles by band key. The database implements it
// with one indexed query over a table of (workspace_id, band_key,
// reported_at, article, story) rows joined to the stored signatures;
// MemIndex is the same lookup in memory.
type Index interface {
	// Candidates returns each article of the workspace reported at or
	// after since that has at least one of keys, once.
	Candidates(ctx context.Context, workspaceID int64, keys []int64, since time.Time) ([]Candidate, error)
}

// MemIndex is an in-memory Index: per workspace and band key, the
// articles in the order they were reported. A lookup costs a map access
// and a binary search per key plus the matches, so its cost follows the
// number of near-duplicates, not the number of articles held. It is safe
// for concurrent use.
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
	var out []Candidate
	seen := map[int64]bool{}
	for _, k := range keys {
		ps := m.postings[postingKey{workspaceID, k}]
		i, _ := slices.BinarySearchFunc(ps, since, func(p posting, t time.Time) int { return p.at.Compare(t) })
		for _, p := range ps[i:] {
			if seen[p.article] {
				continue
			}
			seen[p.article] = true
			e := m.signatures[p.article]
			out = append(out, Candidate{ArticleID: p.article, StoryID: e.story, At: e.at, Signature: e.sig})
		}
	}
	return out, nil
}
