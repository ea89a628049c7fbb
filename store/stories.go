package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// placeAttempts bounds how often a save asks its placer again when a story
// the placement changes was written by another save between the read and
// the lock (see beginStories).
const placeAttempts = 4

// errStoriesChanged is a placement whose stories kept changing under it.
var errStoriesChanged = errors.New("the stories it changes were written by other saves meanwhile")

// storyView reads a workspace's stories inside a save's transaction: the
// view the save hands its StoryPlacer. Each read is one statement.
type storyView struct {
	s  *Store
	tx *sqlx.Tx
	// cs is the save's part in the store's copy of the story index
	// (SQLite, storycopy.go); nil: the reads go to the tables.
	cs *copySave
	// fs is the save's part in the copy of the document frequencies
	// (PostgreSQL, storycopy_pgfreq.go).
	fs *pgFreqSave
	// first records the save's first read of the frequencies.
	first *firstRead
}

// sameWorkspace is the condition that a row named by id is of the
// workspace in the parameter. The unary plus keeps SQLite from reading
// the rows by a workspace index (every story or article of the
// workspace) rather than by the few ids named.
const sameWorkspace = "+workspace_id = ?"

// docFreqAll is the term whose story_doc_freq rows count the articles
// themselves.
const docFreqAll = 0

// docFreqLogUnder is how many articles in its window a workspace counts
// before its saves add their features' counts to the table rather than
// log them (story_doc_freq_log, migration 0030). Below it a read goes
// through the workspace's logged rows, at most some 25 000 counts (96
// features an article); above it a term's rows are read by the primary
// key, and a save's counts mostly update rows that other articles of the
// workspace made.
const docFreqLogUnder = 256

// docFreqFoldAt is how many feature counts (a term of an article each) a
// process logs for a workspace of docFreqLogUnder articles or more before
// its next save of the workspace moves the log into the table. Each
// save's counts went to the table by themselves before: a save of five
// articles of news updated some 450 rows of the workspace's week, which
// lie all over its part of the table, and in one workspace of 2 000
// sources that upsert (and on SQLite the pages it dirtied, written again
// at every commit) was the largest statement of a save. Logged, the save
// writes one row; the move updates each row once for the saves it folds,
// whose articles share most of their words. The bound is about what a
// small workspace's log holds at most (docFreqLogUnder articles of 96
// features), so a read that goes through the log costs what it costs
// there.
const docFreqFoldAt = 16384

// docFreqShards is how many rows a workspace's article count of a week
// (term docFreqAll) is split into. Every save of the workspace adds to
// that count: in one row, each save held its lock from the addition to
// its commit, and saves of one workspace committed one after the other
// even where their articles shared no index term. A save adds to the
// row of its source's shard (docFreqShard), so saves of sources of
// different shards never meet there; a read sums the shards as it sums
// the weeks. Only the count is split: a word's rows are read for every
// article that has the word, and splitting them would multiply the rows
// every placement reads.
const docFreqShards = 16

// docFreqShard is the shard of source's additions to the article count.
func docFreqShard(source int64) int64 {
	return (source%docFreqShards + docFreqShards) % docFreqShards
}

func (v storyView) StoryDocFreq(ctx context.Context, workspaceID int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	read, err := v.docFreq(ctx, workspaceID, terms, since)
	if err == nil {
		v.first.note(read)
	}
	return read, err
}

// docFreq is StoryDocFreq from the copy the save reads, or the table.
func (v storyView) docFreq(ctx context.Context, workspaceID int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	if v.cs != nil && v.cs.ws == workspaceID {
		if err := v.s.copies.begin(ctx, v.tx, v.cs); err != nil {
			return nil, err
		}
		if v.cs.entry != nil {
			return v.s.copies.readFreq(ctx, v.tx, v.cs, terms, model.StoryPeriod(since))
		}
		read, err := v.tableDocFreq(ctx, workspaceID, terms, since)
		if err == nil {
			v.s.copies.start(v.cs, read.Docs)
		}
		return read, err
	}
	if v.fs != nil && v.fs.ws == workspaceID {
		return v.s.pgFreq.read(ctx, v.tx, v.fs, terms, model.StoryPeriod(since), func() (*model.StoryDocFreq, error) {
			return v.tableDocFreq(ctx, workspaceID, terms, since)
		})
	}
	return v.tableDocFreq(ctx, workspaceID, terms, since)
}

// tableDocFreq is StoryDocFreq from the table.
func (v storyView) tableDocFreq(ctx context.Context, workspaceID int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	list := make([]int64, 0, len(terms)+1)
	list = append(list, docFreqAll)
	for _, t := range terms {
		list = append(list, v.s.d.docFreqTerm(t))
	}
	out := &model.StoryDocFreq{Terms: make(map[uint32]int, len(terms))}
	// Scanned by hand: a poll reads a thousand rows or more here, and
	// mapping each onto a struct by reflection cost more than the read.
	var cols [2]any
	err := scanRows(ctx, v.tx, v.s.d.docFreqRead(), []any{workspaceID, model.StoryPeriod(since), v.s.d.int64List(list)}, func(r *sql.Rows) error {
		term, docs, err := scanInt64s2(r, &cols)
		if err != nil {
			return err
		}
		if term == docFreqAll {
			out.Docs += int(docs)
		} else {
			out.Terms[uint32(term)] += int(docs)
		}
		return nil
	})
	if err == nil {
		err = v.loggedDocFreq(ctx, workspaceID, terms, since, out)
	}
	if err != nil {
		return nil, fmt.Errorf("read document frequencies of workspace %d: %w", workspaceID, err)
	}
	return out, nil
}

// loggedDocFreq adds to out the logged counts of terms, where the
// dialect reads them apart (docFreqLogRead): each row a list of terms
// ascending, a term once per article that has it, each given as its
// difference from the one before.
func (v storyView) loggedDocFreq(ctx context.Context, workspaceID int64, terms []uint32, since time.Time, out *model.StoryDocFreq) error {
	q := v.s.d.docFreqLogRead()
	if q == "" {
		return nil
	}
	asked := slices.Clone(terms)
	slices.Sort(asked)
	asked = slices.Compact(asked)
	counts := make([]int, len(asked))
	err := eachLoggedRow(ctx, v.tx, q, workspaceID, model.StoryPeriod(since), func(_ int64, deltas []uint32) {
		countLogged(counts, asked, deltas)
	})
	for j, n := range counts {
		if n > 0 {
			out.Terms[asked[j]] += n
		}
	}
	return err
}

// eachLoggedRow hands f each row of workspace ws's log from period from
// on, as the dialect's docFreqLogRead statement q gives them: the row's
// period and its terms as differences, in a slice f must not keep.
func eachLoggedRow(ctx context.Context, tx *sqlx.Tx, q string, ws, from int64, f func(period int64, deltas []uint32)) error {
	var period, list any
	var deltas []uint32
	return scanRows(ctx, tx, q, []any{ws, from}, func(r *sql.Rows) error {
		err := r.Scan(&period, &list)
		var p int64
		if err == nil {
			p, err = asInt64(period)
		}
		if err == nil {
			deltas, err = parseTermList(deltas[:0], list)
		}
		if err != nil {
			return fmt.Errorf("logged document counts: %w", err)
		}
		f(p, deltas)
		return nil
	})
}

// countLogged adds to counts[j] how many times asked[j] (asked sorted,
// distinct) is in a logged row (deltas: each term as its difference from
// the one before, so the terms ascend). The two ascending lists are
// walked together, a comparison per logged term where a map look-up cost
// several times that.
func countLogged(counts []int, asked, deltas []uint32) {
	var t uint32
	j := 0
	for i, d := range deltas {
		prev := t
		if t += d; i > 0 && t < prev {
			// Not ascending (the sum wrapped): find the place again.
			j, _ = slices.BinarySearch(asked, t)
		}
		for j < len(asked) && asked[j] < t {
			j++
		}
		if j == len(asked) {
			return
		}
		if asked[j] == t {
			counts[j]++
		}
	}
}

// scanInt64s2 and scanInt64s4 scan a row of integer columns through
// cols. database/sql hands a column to an *any as the driver gave it,
// where it converts it into an *int64 by reflection: in the term index
// lookup that conversion was a tenth of the statement's time.
func scanInt64s2(r *sql.Rows, cols *[2]any) (a, b int64, err error) {
	if err = r.Scan(&cols[0], &cols[1]); err != nil {
		return 0, 0, err
	}
	c, err := int64s(cols[:])
	return c[0], c[1], err
}

func scanInt64s4(r *sql.Rows, cols *[4]any) ([4]int64, error) {
	if err := r.Scan(&cols[0], &cols[1], &cols[2], &cols[3]); err != nil {
		return [4]int64{}, err
	}
	return int64s(cols[:])
}

// int64s is up to four integer columns scanned into anys.
func int64s(cols []any) (out [4]int64, err error) {
	for i, c := range cols {
		if out[i], err = asInt64(c); err != nil {
			return out, err
		}
	}
	return out, nil
}

// asInt64 is an integer column's value as a driver hands it: an int64,
// or the digits of a wider type.
func asInt64(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case []byte:
		return strconv.ParseInt(string(v), 10, 64)
	case string:
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, fmt.Errorf("integer column: %T value", v)
}

// scanRows runs a query in tx and hands each row to scan.
func scanRows(ctx context.Context, tx *sqlx.Tx, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (v storyView) StoryPostings(ctx context.Context, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	if q.PerTerm <= 0 {
		return nil, fmt.Errorf("look up story terms of workspace %d: %d entries per term asked for", q.WorkspaceID, q.PerTerm)
	}
	if len(q.Terms) == 0 {
		return nil, nil
	}
	if v.cs != nil && v.cs.ws == q.WorkspaceID {
		if err := v.s.copies.begin(ctx, v.tx, v.cs); err != nil {
			return nil, err
		}
		if v.cs.entry != nil {
			return v.s.copies.readPostings(ctx, v.tx, v.cs, q)
		}
		return v.cs.readSaved(ctx, v.tx, q)
	}
	terms := make([]int64, len(q.Terms))
	keys := make([]int64, len(q.Terms))
	for i, t := range q.Terms {
		terms[i] = int64(t)
		keys[i] = q.WorkspaceID<<32 | int64(t)
	}
	// Two saves whose articles share an index term place them one after
	// the other: the second waits here until the first commits, and then
	// reads its entries. Otherwise two polls carrying one event, saved at
	// once, would each start a story for it. Saves that share no term do
	// not wait on each other.
	if stmt := v.s.d.lockStoryTerms(); stmt != "" && !q.Stored {
		slices.Sort(keys)
		var n int64
		if err := v.tx.GetContext(ctx, &n, v.s.q(stmt), v.s.d.int64List(slices.Compact(keys))); err != nil {
			return nil, fmt.Errorf("lock story terms of workspace %d: %w", q.WorkspaceID, err)
		}
	}
	out := make([]model.StoryPosting, 0, len(terms)*q.PerTerm)
	var cols [4]any
	err := scanRows(ctx, v.tx, v.s.d.storyPostings(q.PerTerm), []any{q.WorkspaceID, v.s.d.int64List(terms), q.Since.Unix()},
		func(r *sql.Rows) error {
			c, err := scanInt64s4(r, &cols)
			if err != nil {
				return err
			}
			out = append(out, model.StoryPosting{Term: uint32(c[0]), ArticleID: c[1], StoryID: c[2], ReportedAt: time.Unix(c[3], 0).UTC()})
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("look up story terms of workspace %d: %w", q.WorkspaceID, err)
	}
	return out, nil
}

func (v storyView) StoryStates(ctx context.Context, workspaceID int64, ids []int64) ([]model.StoryState, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	q := `SELECT id, article_count, revision, merged_into, centroid FROM stories WHERE ` + sameWorkspace + ` AND ` +
		v.s.d.int64In("id") + ` ORDER BY id`
	// Scanned by hand, as StoryDocFreq: a poll reads hundreds of stories
	// here, and sqlx maps each row onto a struct by reflection.
	out := make([]model.StoryState, 0, len(ids))
	var cols [4]any
	err := scanRows(ctx, v.tx, v.s.q(q), []any{workspaceID, v.s.d.int64List(ids)}, func(r *sql.Rows) error {
		var st model.StoryState
		if err := r.Scan(&cols[0], &cols[1], &cols[2], &cols[3], &st.Centroid); err != nil {
			return err
		}
		if cols[3] == nil {
			cols[3] = int64(0) // not merged
		}
		c, err := int64s(cols[:])
		if err != nil {
			return err
		}
		st.ID, st.Articles, st.Revision, st.MergedInto = c[0], int(c[1]), c[2], c[3]
		out = append(out, st)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %d stories of workspace %d: %w", len(ids), workspaceID, err)
	}
	return out, nil
}

// storyTally is what a save keeps of a story it changes, written back in
// one statement when the save's articles are placed (finishStories).
type storyTally struct {
	count    int
	firstID  int64
	first    time.Time
	last     time.Time
	centroid []byte
	fresh    bool // created by this save
}

// add counts an article reported at at into the story.
func (t *storyTally) add(id int64, at time.Time) {
	t.count++
	if t.firstID == 0 || at.Before(t.first) || at.Equal(t.first) && id < t.firstID {
		t.firstID, t.first = id, at
	}
	if at.After(t.last) {
		t.last = at
	}
}

// absorb counts a merged story's articles into t.
func (t *storyTally) absorb(o *storyTally) {
	t.count += o.count
	if o.firstID != 0 && (t.firstID == 0 || o.first.Before(t.first) || o.first.Equal(t.first) && o.firstID < t.firstID) {
		t.firstID, t.first = o.firstID, o.first
	}
	if o.last.After(t.last) {
		t.last = o.last
	}
}

// storySave carries a poll's story placement through its batches of
// articles (save.go).
type storySave struct {
	choice  []model.StoryChoice
	started map[int][]byte
	merges  []model.StoryMerge
	placed  model.StoryPlacement
	// storyOf, ids and at are, for each inserted article, its story, its
	// id and when it counts as reported (storyOf 0: not inserted).
	storyOf []int64
	ids     []int64
	at      []time.Time
	// groups maps the first article of a story the poll starts (the
	// decision's root) to the id reserved for the story; reserved maps
	// those ids back to their roots.
	groups   map[int]int64
	reserved map[int64]int
	// stored holds the stored stories the placement changes as they were
	// locked; tally, once the articles are stored (tallyUp), every story
	// the save changes, stored or new.
	stored map[int64]*storyTally
	tally  map[int64]*storyTally
	// created is when the save's first batch was stored: the new stories'
	// created_at.
	created time.Time
	counts  model.StoryCounts
	// copy is the save's part in the copy of the story index (nil where
	// there is none); freq its part in the copy of the document
	// frequencies (PostgreSQL).
	copy *copySave
	freq *pgFreqSave
	// first is what the placement's first read of the frequencies
	// counted; logWrite where the save wrote its feature counts.
	first    firstRead
	logWrite logWrite
}

// firstRead is the article count a save's first read of its workspace's
// document frequencies counted in the window, which decides whether the
// save logs its features' counts (docFreqLogUnder).
type firstRead struct {
	docs int
	done bool
}

// note records read's article count when it is the save's first read.
func (f *firstRead) note(read *model.StoryDocFreq) {
	if f != nil && !f.done {
		f.docs, f.done = read.Docs, true
	}
}

// beginStories has the poll's StoryPlacer decide inside the save's
// transaction, then locks the stored stories the decision changes, in id
// order (on PostgreSQL; SQLite has one writer), and checks that each is
// still at the revision the placer read. When one is not (another save
// wrote it in between) the placer decides again, at most placeAttempts
// times. So saves of one workspace only wait on each other where they
// change the same stories, and a story is never written from a stale
// read. Without a placer every article starts a story. Last it reserves
// the ids of the stories the save starts, so that every article is
// inserted with its story.
func (s *Store) beginStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave) (*storySave, error) {
	n := len(p.Articles)
	st := &storySave{choice: make([]model.StoryChoice, n), storyOf: make([]int64, n), ids: make([]int64, n),
		at: make([]time.Time, n), groups: map[int]int64{}, reserved: map[int64]int{}, stored: map[int64]*storyTally{},
		started: map[int][]byte{}}
	if s.copies != nil {
		st.copy = &copySave{ws: p.WorkspaceID}
	}
	if s.pgFreq != nil {
		st.freq = newPGFreqSave(p.WorkspaceID, p.SourceID)
	}
	for i := range st.choice {
		st.choice[i] = model.NewStory()
	}
	if p.Stories != nil && n > 0 {
		if err := s.placeAndLock(ctx, tx, p, st); err != nil {
			return nil, err
		}
	}
	if err := s.reserveStories(ctx, tx, p, st); err != nil {
		return nil, err
	}
	return st, nil
}

// placeAndLock is beginStories' decision and locks (see there).
func (s *Store) placeAndLock(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	req := model.StoryRequest{WorkspaceID: p.WorkspaceID, SourceID: p.SourceID, Facts: make([]*model.StoryFacts, len(p.Articles))}
	for i, na := range p.Articles {
		req.Facts[i] = na.Story
	}
	if st.copy != nil {
		// Every save that places writes to the story index, whether or
		// not its placer reads it: the version token is replaced here,
		// once, so that the copy learns of the writes.
		if err := s.copies.begin(ctx, tx, st.copy); err != nil {
			return fmt.Errorf("save stories of source %d: %w", p.SourceID, err)
		}
	}
	for attempt := 1; ; attempt++ {
		placed, err := p.Stories.PlaceStories(ctx, storyView{s: s, tx: tx, cs: st.copy, fs: st.freq, first: &st.first}, req)
		if err != nil {
			return fmt.Errorf("save stories of source %d: %w", p.SourceID, err)
		}
		if len(placed.Articles) != len(p.Articles) {
			return fmt.Errorf("save stories of source %d: %d story choices for %d articles", p.SourceID,
				len(placed.Articles), len(p.Articles))
		}
		ok, err := s.lockStories(ctx, tx, p, placed, st)
		if err != nil {
			return err
		}
		if ok {
			st.placed = placed
			break
		}
		if attempt == placeAttempts {
			return fmt.Errorf("save stories of source %d: %w", p.SourceID, errStoriesChanged)
		}
	}
	for i, c := range st.placed.Articles {
		if c.StoryID > 0 || c.JoinsArticle >= i {
			c.JoinsArticle = -1 // a stored story wins; a later article cannot found this one's story
		}
		st.choice[i] = c
	}
	st.started = st.placed.Started
	st.merges = st.placed.Merges
	return nil
}

// lockStories locks the stored stories placed changes and reports
// whether each is still as the placer read it (same revision, not merged
// away); if so it fills st.stored with them.
func (s *Store) lockStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, placed model.StoryPlacement, st *storySave) (bool, error) {
	if len(placed.Updates) == 0 {
		return true, nil
	}
	want := make(map[int64]model.StoryUpdate, len(placed.Updates))
	ids := make([]int64, 0, len(placed.Updates))
	for _, u := range placed.Updates {
		want[u.ID] = u
		ids = append(ids, u.ID)
	}
	slices.Sort(ids)
	var rows []struct {
		ID         int64         `db:"id"`
		Revision   int64         `db:"revision"`
		Count      int           `db:"article_count"`
		FirstID    sql.NullInt64 `db:"first_article_id"`
		First      time.Time     `db:"first_reported_at"`
		Last       time.Time     `db:"last_reported_at"`
		MergedInto sql.NullInt64 `db:"merged_into"`
	}
	q := `SELECT id, revision, article_count, first_article_id, first_reported_at, last_reported_at, merged_into
		FROM stories WHERE ` + sameWorkspace + ` AND ` + s.d.int64In("id") + ` ORDER BY id` + s.d.forUpdate()
	if err := tx.SelectContext(ctx, &rows, s.q(q), p.WorkspaceID, s.d.int64List(ids)); err != nil {
		return false, fmt.Errorf("save stories of source %d: lock %d stories: %w", p.SourceID, len(ids), err)
	}
	if len(rows) != len(ids) {
		return false, nil
	}
	stored := make(map[int64]*storyTally, len(rows))
	for _, r := range rows {
		u := want[r.ID]
		if r.Revision != u.Revision || r.MergedInto.Valid {
			return false, nil
		}
		stored[r.ID] = &storyTally{count: r.Count, firstID: r.FirstID.Int64, first: r.First, last: r.Last, centroid: u.Centroid}
	}
	st.stored = stored
	return true, nil
}

// reserveStories takes an id for each story the save may start (one per
// root of the decision, in the roots' order), in one statement: the
// articles are inserted with these ids before the stories' rows are
// written whole (insertStories), because only then is it known which
// articles were inserted and so which stories are started and with which
// first article. Where the references to stories are checked at each
// statement (SQLite) the statement inserts a placeholder row under each
// id, so that they hold meanwhile. A story none of whose articles was
// inserted (another poll stored them first) is never kept.
func (s *Store) reserveStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	isRoot := make([]bool, len(st.choice))
	for g, c := range st.choice {
		if c.StoryID == 0 {
			isRoot[st.rootOf(g)] = true
		}
	}
	var roots []int // in order
	for r, ok := range isRoot {
		if ok {
			roots = append(roots, r)
		}
	}
	if len(roots) == 0 {
		return nil
	}
	var ids []int64
	query, args := s.d.reserveStoryIDs(len(roots), p.WorkspaceID, now())
	if err := tx.SelectContext(ctx, &ids, s.q(query), args...); err != nil {
		return fmt.Errorf("save stories of source %d: reserve %d story ids: %w", p.SourceID, len(roots), err)
	}
	if len(ids) != len(roots) {
		return fmt.Errorf("save stories of source %d: %d story ids reserved for %d stories", p.SourceID, len(ids), len(roots))
	}
	slices.Sort(ids)
	for i, r := range roots {
		st.groups[r] = ids[i]
		st.reserved[ids[i]] = r
	}
	return nil
}

// storyFor is the story article g of the save is inserted with: a stored
// one or one the save starts.
func (st *storySave) storyFor(g int) int64 {
	if id := st.choice[g].StoryID; id > 0 {
		return id
	}
	return st.groups[st.rootOf(g)]
}

// joinStored sets, before the batch's articles are inserted, the story of
// each and why it joined: they are inserted with them.
func (st *storySave) joinStored(offset int, arts []model.NewArticle) {
	for i := range arts {
		arts[i].Article.StoryReason = st.choice[offset+i].Reason
		arts[i].Article.StoryProfile = st.choice[offset+i].Profile
		id := st.storyFor(offset + i)
		arts[i].Article.StoryID = &id
	}
}

// placeStories notes the batch's inserted articles in their stories
// (inserted maps the keys of the inserted articles to their ids); the
// stories' rows and the term index are written once all the save's
// articles are stored (finishStories).
func (st *storySave) placeStories(offset int, arts []model.NewArticle, inserted map[articleKey]int64, t time.Time) {
	if st.created.IsZero() {
		st.created = t
	}
	for i, na := range arts {
		id, ok := inserted[keyOf(na.Article)]
		if !ok {
			continue // another poll stored it first: no story of ours
		}
		g := offset + i
		st.storyOf[g], st.ids[g], st.at[g] = st.storyFor(g), id, reportedAt(na, t)
	}
}

// tallyUp counts the inserted articles into their stories: the stored
// ones as locked, the new ones from nothing.
func (st *storySave) tallyUp() {
	st.tally = make(map[int64]*storyTally, len(st.stored)+len(st.reserved))
	for id, tl := range st.stored {
		c := *tl
		st.tally[id] = &c
	}
	for g, sid := range st.storyOf {
		if sid == 0 {
			continue
		}
		tl, ok := st.tally[sid]
		if !ok {
			tl = &storyTally{}
			if root, fresh := st.reserved[sid]; fresh {
				tl.fresh, tl.centroid = true, st.started[root]
			}
			st.tally[sid] = tl
		}
		if tl.fresh && tl.count == 0 {
			st.counts.Started++
		} else {
			st.counts.Joined++
		}
		tl.add(st.ids[g], st.at[g])
	}
}

func (st *storySave) rootOf(g int) int {
	if j := st.choice[g].JoinsArticle; j >= 0 && st.choice[g].StoryID == 0 {
		return j
	}
	return g
}

// insertStories writes the rows of the stories the save started, with
// the ids reserved for them: those that have an inserted article, each
// whole (count, first reporter, first and last report, the centroid the
// placer computed), a statement per articleBatch stories. Where the ids
// were reserved by placeholder rows it writes over them, and deletes
// those of stories that lost all their articles to another poll (one
// more statement, only then).
func (s *Store) insertStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	var ids []int64
	for id, tl := range st.tally {
		if tl.fresh {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	suffix := ``
	if s.d.storyPlaceholders() {
		suffix = ` ON CONFLICT (id) DO UPDATE SET first_article_id = excluded.first_article_id,
			first_reported_at = excluded.first_reported_at, last_reported_at = excluded.last_reported_at,
			article_count = excluded.article_count, created_at = excluded.created_at, centroid = excluded.centroid`
	}
	for start := 0; start < len(ids); start += articleBatch {
		chunk := ids[start:min(start+articleBatch, len(ids))]
		query := multiRowInsert(`INSERT INTO stories (id, workspace_id, first_article_id, first_reported_at, last_reported_at,
			article_count, created_at, centroid) VALUES `, 8, len(chunk), suffix)
		args := make([]any, 0, 8*len(chunk))
		for _, id := range chunk {
			tl := st.tally[id]
			args = append(args, id, p.WorkspaceID, tl.firstID, tl.first.UTC(), tl.last.UTC(), tl.count, st.created, tl.centroid)
		}
		if _, err := tx.ExecContext(ctx, s.q(query), args...); err != nil {
			return fmt.Errorf("save stories of source %d: %w", p.SourceID, err)
		}
	}
	if len(ids) == len(st.reserved) || !s.d.storyPlaceholders() {
		return nil
	}
	var lost []int64
	for id := range st.reserved {
		if _, ok := st.tally[id]; !ok {
			lost = append(lost, id)
		}
	}
	slices.Sort(lost)
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM stories WHERE `+sameWorkspace+` AND `+s.d.int64In("id")),
		p.WorkspaceID, s.d.int64List(lost)); err != nil {
		return fmt.Errorf("save stories of source %d: delete %d stories whose articles another poll stored: %w", p.SourceID, len(lost), err)
	}
	return nil
}

// insertTerms files the save's inserted articles in the term index under
// their index terms, a statement per articleBatch articles (at most
// articleBatch × 12 rows). An entry already filed by the save (an article
// the poll carried twice) is filed once: the first is kept, as a
// conflict on the primary key that is ignored would keep it, without
// asking the database to check every entry for one.
func (s *Store) insertTerms(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) (termRows, error) {
	var rows, all termRows
	articles := 0
	seen := make(map[[3]int64]struct{})
	flush := func() error {
		if len(rows.terms) > 0 {
			query, args := s.d.insertTermRows(p.WorkspaceID, rows)
			if _, err := tx.ExecContext(ctx, s.q(query), args...); err != nil {
				return fmt.Errorf("save story terms of source %d: %w", p.SourceID, err)
			}
		}
		if st.copy != nil {
			all.append(rows)
		}
		rows, articles = termRows{}, 0
		return nil
	}
	for g, sid := range st.storyOf {
		if sid == 0 {
			continue
		}
		terms := slices.Clone(st.choice[g].Terms)
		slices.Sort(terms)
		at := st.at[g].Unix()
		for _, term := range slices.Compact(terms) {
			key := [3]int64{int64(term), at, st.ids[g]}
			if _, ok := seen[key]; ok {
				continue
			}
			seen[key] = struct{}{}
			rows.terms = append(rows.terms, int64(term))
			rows.reported = append(rows.reported, at)
			rows.articles = append(rows.articles, st.ids[g])
			rows.stories = append(rows.stories, sid)
		}
		if articles++; articles == articleBatch {
			if err := flush(); err != nil {
				return termRows{}, err
			}
		}
	}
	return all, flush()
}

// termRows are term index entries of one workspace, column by column.
type termRows struct {
	terms, reported, articles, stories []int64
}

// appendTerms appends to dst the terms of a comma-separated list, as the
// members statements and SQLite's term index rows (termList) write them:
// unsigned 32-bit integers, no spaces, an empty field skipped. It reads
// the digits itself, with no field cut out first: a small workspace's
// save on SQLite parses every logged term of its window, thousands of
// them a row.
func appendTerms[T string | []byte](dst []uint32, list T) ([]uint32, error) {
	var v uint64
	start := 0
	for i := 0; i <= len(list); i++ {
		if i == len(list) || list[i] == ',' {
			if i > start {
				dst = append(dst, uint32(v))
			}
			v, start = 0, i+1
			continue
		}
		d := list[i] - '0'
		if v = v*10 + uint64(d); d > 9 || v > math.MaxUint32 {
			end := start
			for end < len(list) && list[end] != ',' {
				end++
			}
			return dst, fmt.Errorf("index term %q: not an unsigned 32-bit integer", string(list[start:end]))
		}
	}
	return dst, nil
}

func (r *termRows) append(o termRows) {
	r.terms = append(r.terms, o.terms...)
	r.reported = append(r.reported, o.reported...)
	r.articles = append(r.articles, o.articles...)
	r.stories = append(r.stories, o.stories...)
}

// finishStories ends the save's placement once its articles are stored:
// the new stories, the term index entries, the merges, the moves of
// stored articles, the changed stories' rows, and the document
// frequencies.
func (s *Store) finishStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	st.tallyUp()
	if err := st.tallyMoves(p); err != nil {
		return err
	}
	if err := s.insertStories(ctx, tx, p, st); err != nil {
		return err
	}
	terms, err := s.insertTerms(ctx, tx, p, st)
	if err != nil {
		return err
	}
	if err := s.mergeStories(ctx, tx, p, st); err != nil {
		return err
	}
	if err := s.moveArticles(ctx, tx, p, st.placed.Moves); err != nil {
		return err
	}
	if err := s.writeStories(ctx, tx, p, st); err != nil {
		return err
	}
	if err := s.recountLeft(ctx, tx, p, st); err != nil {
		return err
	}
	if err := s.addDocFreq(ctx, tx, p, st.placed.Counts, st.freq, st.copy, &st.first, &st.logWrite); err != nil {
		return err
	}
	if st.copy != nil {
		s.copies.wrote(st.copy, func(w *copyPending) {
			w.counts = append(w.counts, st.placed.Counts...)
			w.terms.append(terms)
			w.merges = append(w.merges, st.merges...)
			w.moves = append(w.moves, st.placed.Moves...)
		})
	}
	return nil
}

// mergeStories folds each merge's From story into its Into story: From's
// articles and content items move to Into, From (and any story merged
// into it before) is marked merged into Into, so its id keeps naming
// where its articles went, and From's tally is added to Into's. A merge
// with a reason (a late join) also writes it as the story_reason of
// From's articles, in the same statement that moves them. Three
// statements for all the merges of the save.
func (s *Store) mergeStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	if len(st.merges) == 0 {
		return nil
	}
	var cases, reasons strings.Builder
	var caseArgs, reasonArgs []any
	froms := make([]int64, 0, len(st.merges))
	for _, m := range st.merges {
		from, into := st.tally[m.From], st.tally[m.Into]
		if m.From <= 0 || m.Into <= 0 || m.From == m.Into || from == nil || into == nil || into.fresh || from.fresh {
			return fmt.Errorf("save stories of source %d: cannot merge story %d into %d", p.SourceID, m.From, m.Into)
		}
		into.absorb(from)
		delete(st.tally, m.From)
		cases.WriteString(` WHEN ? THEN CAST(? AS BIGINT)`)
		caseArgs = append(caseArgs, m.From, m.Into)
		froms = append(froms, m.From)
		if m.Reason != "" {
			reasons.WriteString(` WHEN ? THEN ?`)
			reasonArgs = append(reasonArgs, m.From, m.Reason)
		}
		st.counts.Merged++
	}
	doing := fmt.Sprintf("save stories of source %d: merge %d stories", p.SourceID, len(froms))
	for _, table := range []string{"feed_articles", "content_items"} {
		args := slices.Clone(caseArgs)
		set := `story_id = CASE story_id` + cases.String() + ` END`
		if table == "feed_articles" && reasons.Len() > 0 {
			// A late join's article gets the reason it is in Into now;
			// the articles a merge through a new article moves keep theirs.
			set += `, story_reason = CASE story_id` + reasons.String() + ` ELSE story_reason END`
			args = append(args, reasonArgs...)
		}
		args = append(args, p.WorkspaceID, s.d.int64List(froms))
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE `+table+` SET `+set+`
			WHERE `+sameWorkspace+` AND `+s.d.int64In("story_id")), args...); err != nil {
			return fmt.Errorf("%s: move %s: %w", doing, table, err)
		}
	}
	// A story merged into From before now resolves to Into directly.
	args := append(slices.Clone(caseArgs), caseArgs...)
	args = append(args, s.d.int64List(froms), p.WorkspaceID, s.d.int64List(froms), s.d.int64List(froms))
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE stories SET
		merged_into = CASE WHEN merged_into IS NULL THEN CASE id`+cases.String()+` END ELSE CASE merged_into`+cases.String()+` END END,
		article_count = CASE WHEN `+s.d.int64In("id")+` THEN 0 ELSE article_count END,
		centroid = NULL, revision = revision + 1
		WHERE `+sameWorkspace+` AND (`+s.d.int64In("id")+` OR `+s.d.int64In("merged_into")+`)`), args...); err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return nil
}

// writeStories writes every story the save changed, stored or new, in one
// statement: its count, first reporter, first and last report, centroid,
// and a revision counted up.
func (s *Store) writeStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	ids := make([]int64, 0, len(st.tally))
	for id, tl := range st.tally {
		if tl.fresh {
			continue // written whole by insertStories
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	var sb strings.Builder
	var args []any
	column := func(name, param string, value func(*storyTally) any) {
		sb.WriteString(name + ` = CASE id`)
		for _, id := range ids {
			sb.WriteString(` WHEN ? THEN ` + param)
			args = append(args, id, value(st.tally[id]))
		}
		sb.WriteString(` END, `)
	}
	sb.WriteString(`UPDATE stories SET `)
	column("article_count", "CAST(? AS INTEGER)", func(t *storyTally) any { return t.count })
	column("first_article_id", "CAST(? AS BIGINT)", func(t *storyTally) any { return t.firstID })
	column("first_reported_at", s.d.timeParam(), func(t *storyTally) any { return t.first.UTC() })
	column("last_reported_at", s.d.timeParam(), func(t *storyTally) any { return t.last.UTC() })
	sb.WriteString(`centroid = CASE`)
	for _, id := range ids {
		if c := st.tally[id].centroid; c != nil {
			sb.WriteString(` WHEN id = ? THEN ?`)
			args = append(args, id, c)
		}
	}
	sb.WriteString(` WHEN 1 = 0 THEN NULL ELSE centroid END, revision = revision + 1 WHERE ` + sameWorkspace + ` AND ` + s.d.int64In("id"))
	args = append(args, p.WorkspaceID, s.d.int64List(ids))
	if _, err := tx.ExecContext(ctx, s.q(sb.String()), args...); err != nil {
		return fmt.Errorf("save stories of source %d: update %d stories: %w", p.SourceID, len(ids), err)
	}
	return nil
}

// addDocFreq adds the placement's document counts to the workspace's
// document frequencies, in one statement: the article count to the row
// of the save's source's shard (docFreqShards).
func (s *Store) addDocFreq(ctx context.Context, tx *sqlx.Tx, p model.PollSave, counts []model.StoryDocCount, fs *pgFreqSave, cs *copySave,
	first *firstRead, w *logWrite) error {
	if len(counts) == 0 {
		return nil
	}
	features := 0
	for _, c := range counts {
		if c.Term != docFreqAll {
			features += c.Docs
		}
	}
	if fs != nil {
		fs.wrote(counts)
		counts = fs.checkRows(counts)
	}
	days, terms, docs := make([]int64, len(counts)), make([]int64, len(counts)), make([]int64, len(counts))
	for i, c := range counts {
		days[i], terms[i], docs[i] = c.Period, s.d.docFreqTerm(c.Term), int64(c.Docs)
	}
	how := s.logMoves.write(p.WorkspaceID, first != nil && first.done && first.docs < s.docFreqLogUnder, features, s.docFreqFoldAt)
	// Known before the statements run: should they fail, the save that
	// ends learns where the counts were to go (logMoves.ended).
	*w = logWrite{ws: p.WorkspaceID, how: how, features: features, done: true}
	if how == docFreqMoveLog && s.d.docFreqLogRead() != "" {
		var err error
		if days, terms, docs, err = s.loggedCounts(ctx, tx, p.WorkspaceID, days, terms, docs); err != nil {
			return fmt.Errorf("save document frequencies of source %d: %w", p.SourceID, err)
		}
	}
	stmts := s.d.docFreqWrites(p.WorkspaceID, docFreqShard(p.SourceID), days, terms, docs, how)
	for i, st := range stmts {
		var err error
		if fs != nil && i == len(stmts)-1 {
			err = tx.GetContext(ctx, &fs.xid, s.q(st.query), st.args...)
		} else {
			_, err = tx.ExecContext(ctx, s.q(st.query), st.args...)
		}
		if err != nil {
			return fmt.Errorf("save document frequencies of source %d: %w", p.SourceID, err)
		}
	}
	if how == docFreqMoveLog && s.copies != nil {
		if err := s.copies.keepToken(ctx, tx, cs); err != nil {
			return fmt.Errorf("save document frequencies of source %d: %w", p.SourceID, err)
		}
	}
	return nil
}

// loggedCounts adds to a save's rows (periods, terms, docs) the counts
// of workspace ws's log, every period of it, where the dialect reads its
// log apart (docFreqLogRead): the save that moves the log upserts them
// with its own. A term the save counts in a period gets the two counts
// summed in one row; the others are appended, period by period, terms
// ascending.
func (s *Store) loggedCounts(ctx context.Context, tx *sqlx.Tx, ws int64, periods, terms, docs []int64) ([]int64, []int64, []int64, error) {
	type key struct{ period, term int64 }
	at := make(map[key]int, len(terms))
	for i := range terms {
		at[key{periods[i], terms[i]}] = i
	}
	extra := map[key]int64{}
	err := eachLoggedRow(ctx, tx, s.d.docFreqLogRead(), ws, math.MinInt64, func(p int64, deltas []uint32) {
		var t uint32
		for _, d := range deltas {
			t += d
			k := key{p, s.d.docFreqTerm(t)}
			if i, ok := at[k]; ok {
				docs[i]++
			} else {
				extra[k]++
			}
		}
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read the logged document counts of workspace %d: %w", ws, err)
	}
	added := slices.SortedFunc(maps.Keys(extra), func(a, b key) int {
		if c := cmp.Compare(a.period, b.period); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	for _, k := range added {
		periods, terms, docs = append(periods, k.period), append(terms, k.term), append(docs, extra[k])
	}
	return periods, terms, docs, nil
}

// logMoves is, for each workspace a committed save of this process
// moved the logged document counts of into the table, how many feature
// counts its saves logged since. Saves of a workspace of docFreqLogUnder
// articles or more log theirs until that reaches docFreqFoldAt, and the
// next one moves the log (its own counts with it). A workspace it has not
// moved since it started has its log moved by its first such save: the
// log may hold what another process or an earlier run left. Another
// process may log meanwhile; its rows stay in the log until this one
// moves it again, which the reads, that add both, never tell. While a
// save of this process moves a workspace's log, the others log: each
// moving it too would wait for the first's locks on the logged rows, and
// then find nothing left to move. With docFreqFoldAt 0 a big workspace's
// saves never log (one that comes during a move moves too); once the log
// is moved they add their counts to the table, and look for a log to
// move only after one logged again: the move reads the log and groups
// the save's rows with it, which in one busy workspace made the upsert a
// third dearer for nothing to move.
type logMoves struct {
	mu sync.Mutex
	ws map[int64]logState
}

// logState is what logMoves knows of one workspace's log.
type logState struct {
	// moved: a save of this process moved the log; logged counts what
	// its saves logged since.
	moved  bool
	logged int
	// moving: a save of this process is moving the log.
	moving bool
}

// write is where a save of workspace ws writes its features feature
// counts: small is whether its workspace counts fewer than
// docFreqLogUnder articles.
func (m *logMoves) write(ws int64, small bool, features, foldAt int) docFreqWrite {
	if small {
		return docFreqToLog
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.ws[ws]
	switch {
	case foldAt > 0 && st.moving, st.moved && st.logged+features <= foldAt:
		return docFreqToLog
	case st.moved && st.logged == 0:
		return docFreqToTable
	}
	if m.ws == nil {
		m.ws = map[int64]logState{}
	}
	st.moving = true
	m.ws[ws] = st
	return docFreqMoveLog
}

// logWrite is where a save wrote its feature counts (done), and how
// many, which logMoves learns once it ends.
type logWrite struct {
	ws       int64
	how      docFreqWrite
	features int
	done     bool
}

// ended records how a save that wrote w ended: committed or not.
func (m *logMoves) ended(w logWrite, committed bool) {
	if !w.done {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.ws[w.ws]
	switch {
	case !ok:
		return
	case w.how == docFreqMoveLog:
		st.moving = false
		if committed {
			st.moved, st.logged = true, 0
		}
	case w.how == docFreqToLog && committed && st.moved:
		st.logged += w.features
	}
	m.ws[w.ws] = st
}

// reportedAt is when an article counts as reported: what the pipeline
// worked out, or (an article saved without a story item) its publication
// time unless later than t, when it is stored.
func reportedAt(na model.NewArticle, t time.Time) time.Time {
	if na.Story != nil && !na.Story.ReportedAt.IsZero() {
		return na.Story.ReportedAt.UTC()
	}
	return model.ReportedAt(na.Article.PublishedAt, t).UTC()
}

// pruneBatch bounds one prune statement: the term entries of the articles
// behind this many index rows (whole articles, so a little more than this
// many rows; on SQLite, where a row is an article, this many articles), or
// this many document-frequency rows, so that SQLite's writer is never
// held long.
const pruneBatch = 500

// PruneStoryTerms deletes, a bounded batch per statement, the term index
// entries of articles reported before before (the story window ago): no
// new article can join their stories through them any more. It also
// deletes the document frequencies of the weeks before freqBefore (the
// document-frequency window ago). Where the dialect prunes by workspace
// (SQLite) it goes through the workspaces one by one. It returns how
// many rows it deleted.
func (s *Store) PruneStoryTerms(ctx context.Context, before, freqBefore time.Time) (int64, error) {
	scopes := [][]any{nil} // one pass across workspaces
	if s.d.pruneByWorkspace() {
		var ids []int64
		if err := s.db.SelectContext(ctx, &ids, `SELECT id FROM workspaces ORDER BY id`); err != nil {
			return 0, fmt.Errorf("prune story terms: list workspaces: %w", err)
		}
		scopes = scopes[:0]
		for _, id := range ids {
			scopes = append(scopes, []any{id})
		}
	}
	stmts := []struct {
		what, query string
		arg         any
	}{
		{"story terms", s.d.pruneTerms(), before.Unix()},
		{"document frequencies", s.d.pruneDocFreq(), model.StoryPeriod(freqBefore)},
	}
	if q := s.d.pruneDocFreqLog(); q != "" {
		stmts = append(stmts, struct {
			what, query string
			arg         any
		}{"logged document frequencies", q, model.StoryPeriod(freqBefore)})
	}
	var total int64
	for _, scope := range scopes {
		for _, st := range stmts {
			n, err := s.pruneBatches(ctx, st.query, append(scope, st.arg, pruneBatch)...)
			total += n
			if err != nil {
				return total, fmt.Errorf("prune %s reported before %s: %w", st.what, before.UTC().Format(time.RFC3339), err)
			}
			if ctx.Err() != nil {
				return total, nil
			}
		}
	}
	return total, nil
}

// pruneBatches runs a bounded DELETE until it deletes nothing or ctx
// ends, and returns how many rows it deleted.
func (s *Store) pruneBatches(ctx context.Context, query string, args ...any) (int64, error) {
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, s.q(query), args...)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += n
		if n == 0 || ctx.Err() != nil {
			return total, nil
		}
	}
}
