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
// page of their table, all of which the commit wrote. With the copy,
// saves only write the two tables, and both are kept by time (migration
// 0027), where a save's rows lie together.
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
//
// Only workspaces of copyFrom articles or more over the document
// frequencies' window get a copy. A small workspace's reads are short
// ranges of the tables, kept by time, and a copy of each of two thousand
// small workspaces would hold more memory than the daemon's whole work
// (its peak RSS went from 109 to 346 MB with a workspace per source):
// a save of a workspace without a copy reads the tables, and makes a
// copy when the article count it reads first reaches copyFrom.
type storyCopies struct {
	mu       sync.Mutex
	entries  map[int64]*storyCopy
	pending  map[int64]*copyPending
	copyFrom int
}

// defaultCopyFrom is copyFrom: a month's thousand articles, some 15 000
// distinct terms, a copy of a megabyte or two.
const defaultCopyFrom = 1000

func newStoryCopies() *storyCopies {
	return &storyCopies{entries: map[int64]*storyCopy{}, pending: map[int64]*copyPending{}, copyFrom: defaultCopyFrom}
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

// copySave is one save's part in the copies: the copy it reads (nil:
// the workspace has none, its reads go to the tables), once the token is
// replaced.
type copySave struct {
	ws              int64
	began           bool
	previous, token int64
	entry           *storyCopy
	// saved is, when the workspace has no copy, the term index entries
	// the save's placement read (readSaved).
	saved *postingsCopy
}

// begin replaces the workspace's token in tx and makes cs's copy current,
// if the workspace has one (see storyCopies), once per save. Every save
// replaces the token, with a copy or without: another process may hold
// one.
func (c *storyCopies) begin(ctx context.Context, tx *sqlx.Tx, cs *copySave) error {
	if cs.began {
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
	if e != nil && e.token != previous {
		e = &storyCopy{token: previous} // read again from the tables
		c.entries[cs.ws] = e
	}
	if e != nil {
		c.pending[cs.ws] = &copyPending{base: previous, token: token}
	}
	cs.began, cs.previous, cs.token, cs.entry = true, previous, token, e
	return nil
}

// start gives cs's workspace a copy, read from the tables as the save
// reads on, if articles (what its first read counted) reach copyFrom.
func (c *storyCopies) start(cs *copySave, articles int) {
	if cs.entry != nil || articles < c.copyFrom {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cs.entry = &storyCopy{token: cs.previous}
	c.entries[cs.ws] = cs.entry
	c.pending[cs.ws] = &copyPending{base: cs.previous, token: cs.token}
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

// keepToken puts cs's token back after its save moved the workspace's
// logged counts into the table: deleting logged rows replaces the token
// (a trigger, for the prunes, which take counts away), but a move keeps
// every sum, and the copy must not be read again from the tables every
// time a big workspace's log is moved (docFreqFoldAt). The save holds
// SQLite's one write lock, so no other reads the token in between.
func (c *storyCopies) keepToken(ctx context.Context, tx *sqlx.Tx, cs *copySave) error {
	if cs == nil || !cs.began {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE story_index_version SET token = ? WHERE workspace_id = ?`, cs.token, cs.ws); err != nil {
		return fmt.Errorf("keep the story index version of workspace %d: %w", cs.ws, err)
	}
	return nil
}
