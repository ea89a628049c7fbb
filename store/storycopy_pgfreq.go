package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// pgFreqCopies is this process's copy of the document frequencies of
// each big workspace on PostgreSQL. In one workspace of thousands of
// sources a placement read the frequencies of two thousand terms or more
// a poll, some eight index pages each: three quarters of the buffers the
// server read for the poll. From the copy, a save reads a few dozen rows.
//
// Replicas save into one workspace at once and nothing orders their
// commits, so the copy is not kept current by a version token, as
// SQLite's is (storycopy.go): each save checks it against the table
// before it answers from it. Every save adds, in the rows of the article
// count (term docFreqAll) of its source's shard, its articles, and in the
// rows of term docFreqCheck of that shard a random token of its own,
// by exclusive or. The copy keeps both as it read or added them. When
// both agree with the table for every week and shard the save reads, the
// copy holds the same saves as the table: a save the copy lacks or holds
// twice changes its weeks' article counts, and one that is swapped for
// another changes the tokens. A pruned week is noticed the same way: the
// copy holds counts of it the table no longer does (while the prune's
// batches are deleting a week, the table's own sums of it are partial
// too; only reads reaching back past the document-frequency window see
// such a week). A copy that disagrees is not read; the save reads the table, and when
// nothing of this process explains the difference (another replica
// saved), the save reads the copy again from the table, at most once
// every reloadEvery checks (fewer while replicas keep saving).
//
// The process adds each of its saves to the copy once the save has
// committed, unless the copy was read after that commit: the copy's read
// keeps the snapshot it read at, and a save whose transaction the
// snapshot sees is in it already. A save that checked the copy answers
// the later reads of its placement from it as it was then, less what
// saves added since (the copy keeps their additions a while), also once
// another save has read a new copy: the one it checked then takes no
// more additions.
type pgFreqCopies struct {
	mu      sync.Mutex
	entries map[int64]*pgFreqCopy
	// inCommit counts, by workspace, this process's saves between their
	// commit and their addition to the copy: while one is, the table may
	// hold a save the copy does not yet. It is kept by workspace, not by
	// copy: a save that began its commit before a new copy was read is
	// added to that one.
	inCommit map[int64]int
	// loading holds, by workspace, the saves that committed while a copy
	// was being read from the table: those its snapshot does not see are
	// added to it before it is used.
	loading  map[int64]*freqLoading
	copyFrom int
	// answered and loaded count the reads answered from a copy and the
	// copies read from the table, and waits the checks that waited for a
	// commit of this process, for the tests.
	answered, loaded, waits int
	// ended is closed, and replaced, whenever a save's commit ends
	// (finish): a check that a commit of this process explains waits for
	// it (awaitCommit), at most commitWait.
	ended      chan struct{}
	commitWait time.Duration
}

// docFreqCheck is the term of the token rows. Features have one of the
// two high bits of a term set (their kind), so no feature is this term.
const docFreqCheck = 1<<30 - 1

// reloadEvery bounds the copy's reads from the table when other
// processes save into the workspace: after a read, this many checks go
// by before the next. When most checks of a copy disagreed, the next
// copy waits twice as many, up to maxReloadEvery: replicas that keep
// saving into one workspace read the table, as before the copy, and
// seldom read a copy that would not agree for long.
const (
	reloadEvery    = 32
	maxReloadEvery = 1024
)

// checkTries is how many times a save checks the copy while a save of
// this process that committed around the check explains a difference.
// Between two checks it waits for a commit of the process to end
// (awaitCommit), at most defaultCommitWait: the table holds such a save from
// its commit on, and the copy once its commit has returned. Checked
// again at once, as before, the copy still disagreed: in one workspace
// of 2 000 sources on PostgreSQL, 194 of 232 reads that went to the
// table (30-45 ms of statement time each, against a few dozen rows for
// a check) were of such saves.
const checkTries = 4

// defaultCommitWait bounds a check's wait for a commit of this process:
// a commit that takes longer (a server that stalls) leaves the save to
// read the table, as it did before it waited.
const defaultCommitWait = 250 * time.Millisecond

// copyEarlierWeeks is how many weeks before the first week a save reads
// a copy holds when that save reads it from the table. A save reads
// from its oldest article's reporting time less the document-frequency
// window, and the next saves of a workspace carry articles published
// earlier: a copy that began at its first save's week could not answer
// them. In one workspace of 2 000 sources on PostgreSQL, 73 of the 186
// reads that went to the table in the first round were of saves that
// reached one to four weeks further back than the copy. The table holds
// little before the window (the rows of old articles until the next
// prune), so the weeks cost the read and the copy almost nothing.
const copyEarlierWeeks = 4

// keptAdditions is how many of the latest additions a copy keeps for
// the saves that checked it before them.
const keptAdditions = 32

func newPGFreqCopies() *pgFreqCopies {
	return &pgFreqCopies{entries: map[int64]*pgFreqCopy{}, inCommit: map[int64]int{}, loading: map[int64]*freqLoading{},
		copyFrom: defaultCopyFrom, ended: make(chan struct{}), commitWait: defaultCommitWait}
}

// freqLoading is the reads of a workspace's copy under way (n), and the
// saves that committed meanwhile.
type freqLoading struct {
	n         int
	committed []*pgFreqSave
}

// pgFreqCopy is one workspace's frequencies from the table's read at
// snapshot, plus the additions of gen saves since.
type pgFreqCopy struct {
	freq     freqCopy
	checks   map[freqCheckKey]freqCheck
	snapshot pgSnapshot
	gen      int64
	added    []freqAddition
	// checked counts the checks since the copy was read, agreed those
	// that found it current; every is how many checks go by before a
	// disagreeing copy is read again.
	checked, agreed, every int
}

// freqCheckKey is a week and shard of the article count and the token.
type freqCheckKey struct{ period, shard int64 }

// freqCheck is what the article count's row and the token's row of a
// week and shard hold.
type freqCheck struct{ docs, token int64 }

// freqAddition is a save's counts added as the copy's gen-th addition,
// sorted by term and period.
type freqAddition struct {
	gen    int64
	counts []model.StoryDocCount
}

// pgSnapshot is a PostgreSQL snapshot: the transactions it sees
// committed are those before xmin, and those before xmax not in xip.
type pgSnapshot struct {
	xmin, xmax int64
	xip        []int64
}

func (s pgSnapshot) sees(xid int64) bool {
	return xid < s.xmin || (xid < s.xmax && !slices.Contains(s.xip, xid))
}

// pgFreqSave is one save's part in the copies.
type pgFreqSave struct {
	ws, shard int64
	// token is the save's token (never 0) and xid its transaction's id
	// (0: not known, the save added nothing).
	token, xid int64
	checked    bool
	// explained: the copy disagreed, and a save of this process that
	// committed meanwhile may be why.
	explained bool
	// entry is the copy the save checked, as of its addition gen; since
	// the week it checked from. nil: the save reads the table.
	entry *pgFreqCopy
	gen   int64
	since int64
	// loaded is the copy the save read from the table, before its own
	// writes.
	loaded *pgFreqCopy
	// counts are what the save added to the table; committing whether
	// it is counted in pgFreqCopies.inCommit.
	counts     []model.StoryDocCount
	committing bool
	// reads counts the save's reads by where they were answered from,
	// and the copies it read from the table.
	reads model.FreqReads
}

func newPGFreqSave(ws, source int64) *pgFreqSave {
	return &pgFreqSave{ws: ws, shard: docFreqShard(source), token: rand.Int64N(1<<31-1) + 1}
}

// checkRows is a save's counts with its token rows: one per week its
// articles count in, after the week's article count. Saves write their
// rows in the order of week and term, as DocCounts sorts them, so that
// two saves never wait for each other's rows in opposite orders; the
// token's term comes after the article count's and before every
// feature's.
func (fs *pgFreqSave) checkRows(counts []model.StoryDocCount) []model.StoryDocCount {
	out := make([]model.StoryDocCount, 0, len(counts)+2)
	for _, c := range counts {
		out = append(out, c)
		if c.Term == docFreqAll {
			out = append(out, model.StoryDocCount{Period: c.Period, Term: docFreqCheck, Docs: int(fs.token)})
		}
	}
	return out
}

// read answers a placement's read of the frequencies of terms from the
// week since on: from the copy when it agrees with the table, else from
// the table (table). A workspace without a copy gets one when a read
// from the table counts copyFrom articles; one whose copy disagreed with
// nothing of this process explaining it has it read again when that is
// due, and the read answers from it.
func (c *pgFreqCopies) read(ctx context.Context, tx *sqlx.Tx, fs *pgFreqSave, terms []uint32, since int64,
	table func() (*model.StoryDocFreq, error)) (*model.StoryDocFreq, error) {
	if !fs.checked {
		fs.checked, fs.since = true, since
		for try := 0; try < checkTries; try++ {
			if try > 0 && !c.awaitCommit(ctx, fs.ws) {
				break
			}
			if err := c.check(ctx, tx, fs, since); err != nil {
				return nil, err
			}
			if fs.entry != nil || !fs.explained {
				break
			}
		}
	}
	if out, ok := c.answer(fs, terms, since); ok {
		fs.reads.FromCopy++
		return out, nil
	}
	had, due := c.due(fs.ws)
	if had && due && !fs.explained && since == fs.since {
		if err := c.reload(ctx, tx, fs, since); err != nil {
			return nil, err
		}
		if out, ok := c.answer(fs, terms, since); ok {
			fs.reads.FromCopy++
			return out, nil
		}
	}
	out, err := table()
	fs.reads.FromTable++
	if err == nil && !had && due && since == fs.since && out.Docs >= c.copyFrom {
		err = c.reload(ctx, tx, fs, since)
	}
	return out, err
}

// due reports whether workspace ws has a copy, and whether a save that
// found none it could read should read one from the table: the
// workspace has none, or nothing of this process explains the copy's
// disagreement (see check), and its every checks went by since it was
// read; and no other save is reading one.
func (c *pgFreqCopies) due(ws int64) (had, due bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[ws]
	if c.loading[ws] != nil {
		return e != nil, false // another save is reading it
	}
	return e != nil, e == nil || (c.inCommit[ws] == 0 && e.checked >= e.every)
}

// reload reads workspace fs.ws's copy from the table, from
// copyEarlierWeeks before week since on, before the save's own writes,
// and makes it the one fs reads.
func (c *pgFreqCopies) reload(ctx context.Context, tx *sqlx.Tx, fs *pgFreqSave, since int64) error {
	c.mu.Lock()
	l := c.loading[fs.ws]
	if l == nil {
		l = &freqLoading{}
		c.loading[fs.ws] = l
	}
	l.n++
	c.mu.Unlock()
	e, err := c.load(ctx, tx, fs.ws, since-copyEarlierWeeks)
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.n--; l.n == 0 {
		delete(c.loading, fs.ws)
	}
	if err != nil {
		return err
	}
	for _, done := range l.committed {
		if !e.snapshot.sees(done.xid) {
			e.add(done)
		}
	}
	e.every = reloadEvery
	if prev := c.entries[fs.ws]; prev != nil && prev.agreed*2 < prev.checked {
		e.every = min(2*prev.every, maxReloadEvery)
	}
	c.entries[fs.ws] = e
	c.loaded++
	fs.reads.CopyLoads++
	fs.entry, fs.gen, fs.loaded = e, 0, e
	return nil
}

// check reads the article counts and tokens from the week since on and
// makes the copy fs's if it agrees.
func (c *pgFreqCopies) check(ctx context.Context, tx *sqlx.Tx, fs *pgFreqSave, since int64) error {
	c.mu.Lock()
	e := c.entries[fs.ws]
	if e == nil {
		c.mu.Unlock()
		return nil // a small workspace's save reads the table, as it did
	}
	gen, busy := e.gen, c.inCommit[fs.ws] > 0
	c.mu.Unlock()
	rows := map[freqCheckKey]freqCheck{}
	var cols [4]any
	err := scanRows(ctx, tx, `SELECT period::bigint, term::bigint, shard::bigint, docs::bigint FROM story_doc_freq
		WHERE workspace_id = $1 AND term IN (0, $3) AND period >= $2`, []any{fs.ws, since, docFreqCheck}, func(r *sql.Rows) error {
		v, err := scanInt64s4(r, &cols)
		if err != nil {
			return err
		}
		k := freqCheckKey{v[0], v[2]}
		ch := rows[k]
		if v[1] == docFreqAll {
			ch.docs = v[3]
		} else {
			ch.token = v[3]
		}
		rows[k] = ch
		return nil
	})
	if err != nil {
		return fmt.Errorf("check the copy of the document frequencies of workspace %d: %w", fs.ws, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[fs.ws] != e {
		// Another save read a new copy meanwhile: worth checking.
		fs.explained = true
		return nil
	}
	e.checked++
	if since >= e.freq.floor && e.agrees(rows, since) {
		e.agreed++
		fs.entry, fs.gen = e, e.gen
		return nil
	}
	// A save of this process that committed around the read explains a
	// difference: the copy is not read again for it.
	fs.explained = busy || c.inCommit[fs.ws] > 0 || e.gen != gen
	return nil
}

// agrees reports whether e holds the article counts and tokens rows of
// the table holds for every week from since on.
func (e *pgFreqCopy) agrees(rows map[freqCheckKey]freqCheck, since int64) bool {
	for k, ch := range rows {
		if e.checks[k] != ch {
			return false
		}
	}
	for k, ch := range e.checks {
		if k.period >= since && ch != (freqCheck{}) {
			if _, ok := rows[k]; !ok {
				return false
			}
		}
	}
	return true
}

// answer is the frequencies of terms from the week since on in the copy
// fs checked, as it was then: what was added since is taken off. ok is
// false when fs checked no copy, or it no longer keeps every addition
// since. A copy that another save has read again since takes no more
// additions, and still answers as it was.
func (c *pgFreqCopies) answer(fs *pgFreqSave, terms []uint32, since int64) (_ *model.StoryDocFreq, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := fs.entry
	if e == nil || since < fs.since {
		return nil, false
	}
	later := e.added[max(0, len(e.added)-int(e.gen-fs.gen)):]
	if int64(len(later)) != e.gen-fs.gen {
		return nil, false
	}
	out := &model.StoryDocFreq{Docs: sumFrom(e.freq.docs, since), Terms: make(map[uint32]int, len(terms))}
	for _, a := range later {
		out.Docs -= a.sumFrom(docFreqAll, since)
	}
	for _, t := range terms {
		if t == docFreqAll {
			continue
		}
		n := sumFrom(e.freq.terms[t], since)
		for _, a := range later {
			n -= a.sumFrom(t, since)
		}
		if n > 0 {
			out.Terms[t] = n
		}
	}
	c.answered++
	return out, true
}

// sumFrom is the docs an addition counted for term from week since on.
func (a freqAddition) sumFrom(term uint32, since int64) int {
	i, _ := slices.BinarySearchFunc(a.counts, term, func(c model.StoryDocCount, t uint32) int { return cmp.Compare(c.Term, t) })
	n := 0
	for ; i < len(a.counts) && a.counts[i].Term == term; i++ {
		if a.counts[i].Period >= since {
			n += a.counts[i].Docs
		}
	}
	return n
}

// load reads workspace ws's frequencies from week from on, with the
// snapshot they were read at, in one statement.
func (c *pgFreqCopies) load(ctx context.Context, tx *sqlx.Tx, ws, from int64) (*pgFreqCopy, error) {
	e := &pgFreqCopy{freq: freqCopy{loaded: true, floor: from, terms: map[uint32][]periodDocs{}},
		checks: map[freqCheckKey]freqCheck{}}
	var cols [4]any
	err := scanRows(ctx, tx, `SELECT period::bigint, term::bigint, shard::bigint, docs::bigint FROM story_doc_freq
			WHERE workspace_id = $1 AND period >= $2
		UNION ALL SELECT l.period::bigint, u.term::bigint, 0, u.docs::bigint FROM story_doc_freq_log l
			CROSS JOIN LATERAL unnest(l.terms, l.docs) AS u(term, docs) WHERE l.workspace_id = $1 AND l.period >= $2
		UNION ALL SELECT -1, 0, pg_snapshot_xmin(s)::text::bigint, pg_snapshot_xmax(s)::text::bigint FROM pg_current_snapshot() AS s
		UNION ALL SELECT -2, 0, 0, x::text::bigint FROM pg_snapshot_xip(pg_current_snapshot()) AS x`, []any{ws, from}, func(r *sql.Rows) error {
		v, err := scanInt64s4(r, &cols)
		if err != nil {
			return err
		}
		switch period, term := v[0], v[1]; {
		case period == -1:
			e.snapshot.xmin, e.snapshot.xmax = v[2], v[3]
		case period == -2:
			e.snapshot.xip = append(e.snapshot.xip, v[3])
		case term == docFreqCheck:
			k := freqCheckKey{period, v[2]}
			ch := e.checks[k]
			ch.token = v[3]
			e.checks[k] = ch
		default:
			if term == docFreqAll {
				k := freqCheckKey{period, v[2]}
				ch := e.checks[k]
				ch.docs = v[3]
				e.checks[k] = ch
			}
			e.freq.addCount(model.StoryDocCount{Period: period, Term: uint32(term), Docs: int(v[3])})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the document frequencies of workspace %d: %w", ws, err)
	}
	return e, nil
}

// wrote records the counts fs's save added to the table.
func (fs *pgFreqSave) wrote(counts []model.StoryDocCount) {
	fs.counts = append(fs.counts, counts...)
}

// committing marks fs's save as about to commit.
func (c *pgFreqCopies) committing(fs *pgFreqSave) {
	if c == nil || fs == nil || len(fs.counts) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inCommit[fs.ws]++
	fs.committing = true
}

// awaitCommit waits, when a save of this process is committing into
// workspace ws, until a commit of the process ends (finish) or
// c.commitWait has passed; it reports whether the copy is worth checking
// again. The check is a save's first read, before it locks any story,
// term or article (it holds its source's row, updated without its key,
// which a commit's deferred key checks do not wait for), so the commit
// it waits for never waits for it; the wait is bounded besides.
func (c *pgFreqCopies) awaitCommit(ctx context.Context, ws int64) bool {
	c.mu.Lock()
	e := c.entries[ws]
	if e == nil {
		c.mu.Unlock()
		return false
	}
	if c.inCommit[ws] == 0 {
		c.mu.Unlock()
		return true // one ended since the check: its addition is in
	}
	ended, wait := c.ended, c.commitWait
	c.waits++
	c.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ended:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// finish adds fs's counts to the workspace's copy once its save has
// committed (see pgFreqCopies), and ends its commit either way.
func (c *pgFreqCopies) finish(fs *pgFreqSave, committed bool) {
	if c == nil || fs == nil || len(fs.counts) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() { close(c.ended); c.ended = make(chan struct{}) }()
	if fs.committing {
		if c.inCommit[fs.ws]--; c.inCommit[fs.ws] == 0 {
			delete(c.inCommit, fs.ws)
		}
		fs.committing = false
	}
	l, e := c.loading[fs.ws], c.entries[fs.ws]
	if !committed || fs.xid == 0 || (l == nil && e == nil) {
		return // (a small workspace's save: nothing keeps its counts)
	}
	slices.SortFunc(fs.counts, func(a, b model.StoryDocCount) int {
		return cmp.Or(cmp.Compare(a.Term, b.Term), cmp.Compare(a.Period, b.Period))
	})
	if l != nil {
		l.committed = append(l.committed, fs)
	}
	if e != nil && (fs.loaded == e || !e.snapshot.sees(fs.xid)) {
		// (A save the copy's snapshot sees committed before the copy was
		// read: the copy holds it.)
		e.add(fs)
	}
}

// add adds a committed save's counts (sorted by term and period) to e.
func (e *pgFreqCopy) add(fs *pgFreqSave) {
	for _, ct := range fs.counts {
		if ct.Period < e.freq.floor {
			continue
		}
		e.freq.addCount(ct)
		if ct.Term == docFreqAll {
			k := freqCheckKey{ct.Period, fs.shard}
			ch := e.checks[k]
			ch.docs += int64(ct.Docs)
			ch.token ^= fs.token
			e.checks[k] = ch
		}
	}
	e.gen++
	e.added = append(e.added, freqAddition{gen: e.gen, counts: fs.counts})
	if len(e.added) > keptAdditions {
		e.added = slices.Delete(e.added, 0, len(e.added)-keptAdditions)
	}
}
