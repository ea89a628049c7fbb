package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// docFreqCache is this process's copy of each workspace's document
// frequencies, on SQLite: a placement's saves read them from here, not
// from story_doc_freq. Reading a poll's few hundred terms across the
// weeks of the window was a statement of a thousand index lookups in
// every save, and the re-examination of older members a second one; kept
// by term, the rows a save adds to lay on nearly every page of the
// table, all of which the commit wrote. With the copy, the table is kept
// week first (migration 0027) and only written.
//
// A copy is exact: a save answers from it only when it holds what the
// table holds. story_doc_freq_version keeps a token per workspace that
// every save adding to the frequencies replaces with a random one of its
// own (in its transaction), and that deleting rows replaces too (a
// trigger). The save learns the token it replaced: if it is the copy's,
// the copy is current. If it is the token of the last save of this
// process, that save committed, and its counts, kept aside as pending,
// are added to the copy first. Otherwise (another process wrote, rows
// were pruned, a save failed after its counts were kept aside) the copy
// is read again from the table, inside the save's transaction.
//
// SQLite runs one writing transaction at a time, so saves of this
// process reach the copy one after the other; the mutex only keeps the
// map safe. PostgreSQL has no copy: replicas save at once, and each
// save reads the table (see storyView.StoryDocFreq).
type docFreqCache struct {
	mu      sync.Mutex
	entries map[int64]*freqEntry
	pending map[int64]*freqPending
}

func newDocFreqCache() *docFreqCache {
	return &docFreqCache{entries: map[int64]*freqEntry{}, pending: map[int64]*freqPending{}}
}

// freqEntry is one workspace's document frequencies as of token, of the
// periods from floor on (the periods before were never asked for).
type freqEntry struct {
	token  int64
	floor  int64
	loaded bool
	// docs is the article count (term docFreqAll, its shards summed) and
	// terms every other term's, each by period in ascending order.
	docs  []periodDocs
	terms map[uint32][]periodDocs
}

type periodDocs struct {
	period int64
	docs   int
}

// freqPending is what a save added, kept until the next save of the
// workspace learns whether it committed (its token is then the one the
// next save replaces).
type freqPending struct {
	base, token int64
	counts      []model.StoryDocCount
}

// freqSave is one save's part in the copy: the copy it reads, once the
// token is replaced.
type freqSave struct {
	ws    int64
	token int64
	entry *freqEntry
}

// begin replaces the workspace's token in tx and makes fs's copy current
// (see docFreqCache), once per save.
func (c *docFreqCache) begin(ctx context.Context, tx *sqlx.Tx, fs *freqSave) error {
	if fs.entry != nil {
		return nil
	}
	token := rand.Int64N(1<<62) + 1 // never 0, which no copy has
	var previous int64
	if err := tx.GetContext(ctx, &previous, `INSERT INTO story_doc_freq_version (workspace_id, token) VALUES (?, ?)
		ON CONFLICT (workspace_id) DO UPDATE SET previous = story_doc_freq_version.token, token = excluded.token
		RETURNING previous`, fs.ws, token); err != nil {
		return fmt.Errorf("version the document frequencies of workspace %d: %w", fs.ws, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[fs.ws]
	if p := c.pending[fs.ws]; e != nil && e.token != previous && p != nil && p.token == previous && p.base == e.token {
		e.add(p.counts)
		e.token = previous
	}
	delete(c.pending, fs.ws)
	if e == nil || e.token != previous {
		e = &freqEntry{token: previous}
		c.entries[fs.ws] = e
	}
	c.pending[fs.ws] = &freqPending{base: previous, token: token}
	fs.token, fs.entry = token, e
	return nil
}

// added keeps aside what fs's save adds to the frequencies, for the next
// save to add to the copy once the save has committed.
func (c *docFreqCache) added(fs *freqSave, counts []model.StoryDocCount) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.pending[fs.ws]; p != nil && p.token == fs.token {
		p.counts = append(p.counts, counts...)
	}
}

// read answers a placement's read of the frequencies of terms from the
// period since on, from fs's copy, reading first from tx the periods of
// the table the copy does not hold.
func (c *docFreqCache) read(ctx context.Context, tx *sqlx.Tx, fs *freqSave, terms []uint32, since int64) (*model.StoryDocFreq, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := fs.entry
	if !e.loaded || since < e.floor {
		upto := int64(0)
		if e.loaded {
			upto = e.floor
		}
		if err := e.load(ctx, tx, fs.ws, since, upto); err != nil {
			return nil, err
		}
	}
	out := &model.StoryDocFreq{Docs: sumFrom(e.docs, since), Terms: make(map[uint32]int, len(terms))}
	for _, t := range terms {
		if t == docFreqAll {
			continue
		}
		if ps, ok := e.terms[t]; ok {
			if n := sumFrom(ps, since); n > 0 {
				out.Terms[t] = n
			}
		}
	}
	return out, nil
}

// sumFrom is the docs of the periods of ps from since on.
func sumFrom(ps []periodDocs, since int64) int {
	n := 0
	for i := len(ps) - 1; i >= 0 && ps[i].period >= since; i-- {
		n += ps[i].docs
	}
	return n
}

// load reads the periods from from on (before upto, unless upto is 0:
// all) into e, week by week along the table's primary key.
func (e *freqEntry) load(ctx context.Context, tx *sqlx.Tx, ws, from, upto int64) error {
	if e.terms == nil {
		e.terms = map[uint32][]periodDocs{}
	}
	query := `SELECT period, term, SUM(docs) FROM story_doc_freq WHERE workspace_id = ? AND period >= ?`
	args := []any{ws, from}
	if upto != 0 {
		query += ` AND period < ?`
		args = append(args, upto)
	}
	query += ` GROUP BY period, term ORDER BY period, term`
	var cols [3]any
	err := scanRows(ctx, tx, query, args, func(r *sql.Rows) error {
		if err := r.Scan(&cols[0], &cols[1], &cols[2]); err != nil {
			return err
		}
		c, err := int64s(cols[:])
		if err != nil {
			return err
		}
		e.addCount(model.StoryDocCount{Period: c[0], Term: uint32(c[1]), Docs: int(c[2])})
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the document frequencies of workspace %d: %w", ws, err)
	}
	e.floor, e.loaded = from, true
	return nil
}

// add adds a committed save's counts to e's periods from its floor on: a
// copy not read yet, and the periods before the floor, are read from the
// table when asked for, with them.
func (e *freqEntry) add(counts []model.StoryDocCount) {
	if !e.loaded {
		return
	}
	for _, c := range counts {
		if c.Period >= e.floor {
			e.addCount(c)
		}
	}
}

func (e *freqEntry) addCount(c model.StoryDocCount) {
	if c.Term == docFreqAll {
		e.docs = addPeriod(e.docs, c.Period, c.Docs)
		return
	}
	e.terms[c.Term] = addPeriod(e.terms[c.Term], c.Period, c.Docs)
}

// addPeriod adds docs to period's count in ps, kept in period order.
func addPeriod(ps []periodDocs, period int64, docs int) []periodDocs {
	i, found := slices.BinarySearchFunc(ps, period, func(p periodDocs, t int64) int {
		switch {
		case p.period < t:
			return -1
		case p.period > t:
			return 1
		}
		return 0
	})
	if found {
		ps[i].docs += docs
		return ps
	}
	return slices.Insert(ps, i, periodDocs{period: period, docs: docs})
}
