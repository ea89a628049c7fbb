package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// storyCopies is this process's copy of each workspace's story index, on
// SQLite: its document frequencies (storycopy_freq.go) and its term
// index (storycopy_postings.go). A placement's saves read them from here,
// not from story_doc_freq and story_terms: those reads were a statement
// of a thousand index lookups each, two or three of them in every save,
// and kept by term, the frequency rows a save adds to lay on nearly every
// page of their table, all of which the commit wrote. With the copy the
// frequencies are kept week first (migration 0027) and only written.
//
// A copy is exact: a save answers from it only when it holds what the
// tables hold. story_index_version keeps a token per workspace that
// every save of the workspace's stories replaces with a random one of
// its own (in its transaction), and that deleting rows of the index
// replaces too (triggers: prunes, deleted articles and workspaces). The
// save learns the token it replaced: if it is the copy's, the copy is
// current. If it is the token of the last save of this process, that
// save committed, and what it wrote, kept aside as pending, is added to
// the copy first. Otherwise (another process wrote, rows were deleted, a
// save failed after its writes were kept aside) the copy is read again
// from the tables, inside the save's transaction.
//
// SQLite runs one writing transaction at a time, so saves of this
// process reach the copies one after the other; the mutex only keeps the
// maps safe. PostgreSQL has no copy: replicas save at once, and each save
// reads the tables (see storyView).
type storyCopies struct {
	mu      sync.Mutex
	entries map[int64]*storyCopy
	pending map[int64]*copyPending
}

func newStoryCopies() *storyCopies {
	return &storyCopies{entries: map[int64]*storyCopy{}, pending: map[int64]*copyPending{}}
}

// storyCopy is one workspace's story index as of token.
type storyCopy struct {
	token    int64
	freq     freqCopy
	postings postingsCopy
}

// copyPending is what a save wrote to the story index, kept until the
// next save of the workspace learns whether it committed (its token is
// then the one the next save replaces).
type copyPending struct {
	base, token int64
	counts      []model.StoryDocCount
	terms       termRows
	moves       []model.StoryMove
	merges      []model.StoryMerge
}

// apply adds what p's save wrote to c, in the order the save wrote it.
func (c *storyCopy) apply(p *copyPending) {
	c.freq.add(p.counts)
	c.postings.add(p.terms)
	c.postings.merge(p.merges)
	c.postings.move(p.moves)
	c.token = p.token
}

// copySave is one save's part in the copies: the copy it reads, once the
// token is replaced.
type copySave struct {
	ws    int64
	token int64
	entry *storyCopy
}

// begin replaces the workspace's token in tx and makes cs's copy current
// (see storyCopies), once per save.
func (c *storyCopies) begin(ctx context.Context, tx *sqlx.Tx, cs *copySave) error {
	if cs.entry != nil {
		return nil
	}
	token := rand.Int64N(1<<62) + 1 // never 0, which no copy has
	var previous int64
	if err := tx.GetContext(ctx, &previous, `INSERT INTO story_index_version (workspace_id, token) VALUES (?, ?)
		ON CONFLICT (workspace_id) DO UPDATE SET previous = story_index_version.token, token = excluded.token
		RETURNING previous`, cs.ws, token); err != nil {
		return fmt.Errorf("version the story index of workspace %d: %w", cs.ws, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[cs.ws]
	if p := c.pending[cs.ws]; e != nil && e.token != previous && p != nil && p.token == previous && p.base == e.token {
		e.apply(p)
	}
	delete(c.pending, cs.ws)
	if e == nil || e.token != previous {
		e = &storyCopy{token: previous}
		c.entries[cs.ws] = e
	}
	c.pending[cs.ws] = &copyPending{base: previous, token: token}
	cs.token, cs.entry = token, e
	return nil
}

// wrote keeps aside, with what cs's save wrote before, what add records
// of its writes, for the next save to add to the copy once this one has
// committed.
func (c *storyCopies) wrote(cs *copySave, add func(p *copyPending)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.pending[cs.ws]; p != nil && p.token == cs.token {
		add(p)
	}
}
