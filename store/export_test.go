package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/feedpoller/feedpoller/model"
)

// RunReadOnly hands a query to the read-only connection without the
// statement check, so tests can show the connection refuses writes by
// itself.
func RunReadOnly(ctx context.Context, r *ReadOnly, query string, row func([]string) error) error {
	return r.run(ctx, query, row)
}

// CheckReadQuery exposes the statement check to tests.
var CheckReadQuery = checkReadQuery

// Searching runs a statement under the search guard (deadline and slots).
func (s *Store) Searching(ctx context.Context, run func(ctx context.Context) error) error {
	return s.searching(ctx, run)
}

// SearchBytesExamined is how many bytes of text search snippets were
// built from since the store was opened.
func (s *Store) SearchBytesExamined() int64 { return s.searchExamined.Load() }

// ExplainStoryPostings returns the plan of the term index read for the
// terms of workspace ws reported at or after since (PostgreSQL: with
// sequential scans priced out, as they are on a large archive, and run
// under EXPLAIN ANALYZE in a transaction it rolls back).
func (s *Store) ExplainStoryPostings(ctx context.Context, ws int64, terms []int64, since int64) (string, error) {
	setup := ""
	if s.d.name() == Postgres {
		setup = `SET LOCAL enable_seqscan = off`
	}
	return s.explain(ctx, setup, s.d.storyPostings(16), ws, s.d.int64List(terms), since)
}

// LogDocFreqUnder sets how many articles a workspace counts before its
// saves add their features' counts to story_doc_freq rather than log
// them (docFreqLogUnder; 0: never log).
func (s *Store) LogDocFreqUnder(articles int) { s.docFreqLogUnder = articles }

// FoldDocFreqAt sets how many feature counts the saves of a bigger
// workspace log before one moves the log (docFreqFoldAt; 0: none).
func (s *Store) FoldDocFreqAt(features int) { s.docFreqFoldAt = features }

// ExplainDocFreqRead returns the plan of the document-frequency read of
// the terms (as story_doc_freq holds them) of workspace ws from period
// on, as a save runs it (PostgreSQL: under EXPLAIN ANALYZE, in a
// transaction it rolls back).
func (s *Store) ExplainDocFreqRead(ctx context.Context, ws int64, terms []int64, period int64) (string, error) {
	return s.explain(ctx, "", s.d.docFreqRead(), ws, period, s.d.int64List(terms))
}

// ExplainMoveTerms returns the plan of the statement that moves the term
// index entries of articles of workspace ws to the story each maps to
// (explainCached: PostgreSQL runs it).
func (s *Store) ExplainMoveTerms(ctx context.Context, ws int64, into map[int64]int64) (string, error) {
	var cases strings.Builder
	var args []any
	ids := make([]int64, 0, len(into))
	for a, st := range into {
		cases.WriteString(` WHEN ? THEN CAST(? AS BIGINT)`)
		args = append(args, a, st)
		ids = append(ids, a)
	}
	slices.Sort(ids)
	return s.explainCached(ctx, s.d.moveTerms(cases.String()), append(args, ws, s.d.int64List(ids))...)
}

// CachedStatements returns the texts of the statements one connection
// of the writing transactions' pool keeps prepared: with a pool of one
// connection, those the store's saves ran lately.
// With forget, the connection then drops them.
func (s *Store) CachedStatements(ctx context.Context, forget bool) ([]string, error) {
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var out []string
	err = conn.Raw(func(dc any) error {
		var kept *keptConn
		switch c := dc.(type) {
		case *msConn:
			kept = &c.keptConn
		case *pgConn:
			kept = &c.keptConn
		}
		if kept == nil || kept.stmts == nil {
			return errors.New("not a connection that keeps statements")
		}
		for text := range kept.stmts.byText {
			out = append(out, text)
		}
		if forget {
			return kept.stmts.close()
		}
		return nil
	})
	return out, err
}

// ExplainUnbound returns the plan of query with every parameter unbound
// (NULL): on SQLite without statistics the plan does not depend on them.
func (s *Store) ExplainUnbound(ctx context.Context, query string) (string, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	// The parameters: bare ones counted, numbered ones (?N) up to the
	// highest.
	params, numbered := 0, 0
	for i := 0; i < len(query); i++ {
		if query[i] != '?' {
			continue
		}
		j := i + 1
		for j < len(query) && query[j] >= '0' && query[j] <= '9' {
			j++
		}
		if j == i+1 {
			params++
			continue
		}
		n, err := strconv.Atoi(query[i+1 : j])
		if err != nil {
			return "", err
		}
		numbered = max(numbered, n)
	}
	rows, err := conn.QueryContext(ctx, s.d.explainPrefix()+query, make([]any, max(params, numbered))...)
	if err != nil {
		return "", err
	}
	return planText(rows)
}

// explain returns the plan of query with args, in a transaction it rolls
// back, after the statement setup ("" for none).
func (s *Store) explain(ctx context.Context, setup, query string, args ...any) (string, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if setup != "" {
		if _, err := tx.ExecContext(ctx, setup); err != nil {
			return "", err
		}
	}
	rows, err := tx.QueryContext(ctx, s.d.explainPrefix()+query, args...)
	if err != nil {
		return "", err
	}
	return planText(rows)
}

// ExplainPrunes returns the plans of the prune statements of the term
// index and of the document frequencies, for workspace ws where the
// dialect prunes by workspace.
func (s *Store) ExplainPrunes(ctx context.Context, ws int64) (terms, freqs string, err error) {
	var scope []any
	if s.d.pruneByWorkspace() {
		scope = []any{ws}
	}
	if terms, err = s.explain(ctx, "", s.d.pruneTerms(), append(scope, int64(1), pruneBatch)...); err != nil {
		return "", "", err
	}
	freqs, err = s.explain(ctx, "", s.d.pruneDocFreq(), append(scope, int64(1), pruneBatch)...)
	return terms, freqs, err
}

// BinarySearchVectors reports whether the store sends search vectors in
// PostgreSQL's binary format.
func (s *Store) BinarySearchVectors() bool { return s.binaryVectors }

// AddDocFreq adds counts to the document frequencies of workspace ws as a
// save of source adds them, in tx, which the caller ends.
func (s *Store) AddDocFreq(ctx context.Context, tx *sqlx.Tx, ws, source int64, counts []model.StoryDocCount) error {
	var cs *copySave
	if s.copies != nil {
		// As a save: the copy of the story index learns of them.
		cs = &copySave{ws: ws}
		if err := s.copies.begin(ctx, tx, cs); err != nil {
			return err
		}
		s.copies.wrote(cs, func(p *copyPending) { p.counts = append(p.counts, counts...) })
	}
	// The caller ends tx: the process does not learn how (as before
	// logMoves counted what saves logged), so its next save looks for a
	// log to move.
	var w logWrite
	err := s.addDocFreq(ctx, tx, model.PollSave{WorkspaceID: ws, SourceID: source}, counts, nil, cs, nil, &w)
	s.logMoves.ended(w, false)
	return err
}

// ReadDocFreq reads the document frequencies of terms in workspace ws
// since since, in tx, as a placement reads them.
func (s *Store) ReadDocFreq(ctx context.Context, tx *sqlx.Tx, ws int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	return storyView{s: s, tx: tx}.StoryDocFreq(ctx, ws, terms, since)
}

// ReadDocFreqAsSave reads them as a save's placement does: from the
// store's copy of them where it keeps one (and then, as a save, it
// replaces the workspace's version token in tx).
func (s *Store) ReadDocFreqAsSave(ctx context.Context, tx *sqlx.Tx, ws int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	v := storyView{s: s, tx: tx}
	if s.copies != nil {
		v.cs = &copySave{ws: ws}
	}
	return v.StoryDocFreq(ctx, ws, terms, since)
}

// ReadPostings reads the term index as a save's placement does, from the
// store's copy (fromCopy, where it keeps one) or from the table.
func (s *Store) ReadPostings(ctx context.Context, tx *sqlx.Tx, q model.StoryTermQuery, fromCopy bool) ([]model.StoryPosting, error) {
	v := storyView{s: s, tx: tx}
	if fromCopy && s.copies != nil {
		v.cs = &copySave{ws: q.WorkspaceID}
	}
	return v.StoryPostings(ctx, q)
}

// FileTermRows files term index entries of workspace ws with the save's
// statement (insertTermRows), in a transaction of its own.
func (s *Store) FileTermRows(ctx context.Context, ws int64, terms, reported, articles, stories []int64) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	query, args := s.d.insertTermRows(ws, termRows{terms: terms, reported: reported, articles: articles, stories: stories})
	if _, err := tx.ExecContext(ctx, s.q(query), args...); err != nil {
		return err
	}
	return tx.Commit()
}

// CopyStoryIndexFrom gives a workspace a copy of its story index from
// articles articles on (0: every workspace).
func (s *Store) CopyStoryIndexFrom(articles int) {
	if s.copies != nil {
		s.copies.copyFrom = articles
	}
	if s.pgFreq != nil {
		s.pgFreq.copyFrom = articles
	}
}

// FreqCopyReads is how many of the saves' reads of document frequencies
// PostgreSQL's copy answered, and how many times it was read from the
// table.
func (s *Store) FreqCopyReads() (answered, loaded int) {
	if s.pgFreq == nil {
		return 0, 0
	}
	s.pgFreq.mu.Lock()
	defer s.pgFreq.mu.Unlock()
	return s.pgFreq.answered, s.pgFreq.loaded
}

// FreqSave is a save's reads and additions of a workspace's document
// frequencies in one transaction, as a placement makes them, with the
// copies of them the store keeps.
type FreqSave struct {
	s      *Store
	tx     *sqlx.Tx
	ws     int64
	source int64
	cs     *copySave
	fs     *pgFreqSave
	first  firstRead
	log    logWrite
}

// BeginFreqSave begins a save of workspace ws's source source.
func (s *Store) BeginFreqSave(ctx context.Context, ws, source int64) (*FreqSave, error) {
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return nil, err
	}
	f := &FreqSave{s: s, tx: tx, ws: ws, source: source}
	if s.copies != nil {
		f.cs = &copySave{ws: ws}
	}
	if s.pgFreq != nil {
		f.fs = newPGFreqSave(ws, source)
	}
	return f, nil
}

// Read reads as the save's placement does.
func (f *FreqSave) Read(ctx context.Context, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	return storyView{s: f.s, tx: f.tx, cs: f.cs, fs: f.fs, first: &f.first}.StoryDocFreq(ctx, f.ws, terms, since)
}

// ReadTable reads the table in the save's transaction.
func (f *FreqSave) ReadTable(ctx context.Context, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	return storyView{s: f.s, tx: f.tx}.tableDocFreq(ctx, f.ws, terms, since)
}

// Add adds counts as the save's placement does.
func (f *FreqSave) Add(ctx context.Context, counts []model.StoryDocCount) error {
	if f.cs != nil {
		if err := f.s.copies.begin(ctx, f.tx, f.cs); err != nil {
			return err
		}
		f.s.copies.wrote(f.cs, func(p *copyPending) { p.counts = append(p.counts, counts...) })
	}
	return f.s.addDocFreq(ctx, f.tx, model.PollSave{WorkspaceID: f.ws, SourceID: f.source}, counts, f.fs, f.cs, &f.first, &f.log)
}

// CopyToken is the story index version token the save wrote, where the
// store keeps a copy of the index (SQLite).
func (f *FreqSave) CopyToken() (int64, bool) {
	if f.cs == nil || !f.cs.began {
		return 0, false
	}
	return f.cs.token, true
}

// CommitHeld commits the save's transaction as SavePoll does, but ends
// its commit in the copies only when the returned function is called:
// until then the table holds the save and the copy does not.
func (f *FreqSave) CommitHeld() (end func(), err error) { return f.BeginCommit()() }

// BeginCommit marks the save as committing, as SavePoll does right
// before its commit, and returns the commit itself, which ends the
// commit in the copies only when the function it returns is called: the
// test decides what happens in between.
func (f *FreqSave) BeginCommit() (commit func() (end func(), err error)) {
	f.s.pgFreq.committing(f.fs)
	return func() (func(), error) {
		err := f.tx.Commit()
		return func() {
			f.s.pgFreq.finish(f.fs, err == nil)
			f.s.logMoves.ended(f.log, err == nil)
		}, err
	}
}

// WaitForCommitsUpTo sets how long a check of PostgreSQL's copy waits
// for a commit of this process at most.
func (s *Store) WaitForCommitsUpTo(d time.Duration) {
	if s.pgFreq != nil {
		s.pgFreq.commitWait = d
	}
}

// FreqCopyWaits is how many checks of PostgreSQL's copy waited for a
// commit of this process to end.
func (s *Store) FreqCopyWaits() int {
	if s.pgFreq == nil {
		return 0
	}
	s.pgFreq.mu.Lock()
	defer s.pgFreq.mu.Unlock()
	return s.pgFreq.waits
}

// Commit commits the save as SavePoll does; Rollback rolls it back.
func (f *FreqSave) Commit() error {
	return f.s.commitSave(context.Background(), f.tx, saveAfter{freq: f.fs, log: f.log})
}
func (f *FreqSave) Rollback() {
	_ = f.tx.Rollback()
	f.s.abandonSave(saveAfter{log: f.log})
}

// HasStoryIndexCopy reports whether the store keeps a copy of workspace
// ws's story index.
func (s *Store) HasStoryIndexCopy(ws int64) bool {
	if s.copies == nil {
		return false
	}
	s.copies.mu.Lock()
	defer s.copies.mu.Unlock()
	return s.copies.entries[ws] != nil
}

// WithoutStoryCopies makes the store's saves read the story index from
// the tables.
func (s *Store) WithoutStoryCopies() { s.copies, s.pgFreq = nil, nil }

// WithStoryCopies gives the store the copies of the story index its
// dialect keeps (again, after WithoutStoryCopies).
func (s *Store) WithStoryCopies() { s.copies, s.pgFreq = s.d.storyCopies(), s.d.freqCopies() }

// SQLiteReprepares is how many times SQLite prepared again, by itself, the
// statements kept by one connection of the store's pool (the only one
// when the pool has one) since the last call: what an expired statement
// costs. The driver keeps its statement handle unexported; it is read
// here by reflection, which a test of this driver version may do.
func (s *Store) SQLiteReprepares(ctx context.Context) (int, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	tls := libc.NewTLS()
	defer tls.Close()
	n := 0
	err = conn.Raw(func(dc any) error {
		mc, ok := dc.(*msConn)
		if !ok || mc.stmts == nil {
			return errors.New("not a SQLite connection that keeps statements")
		}
		for e := mc.stmts.lru.Front(); e != nil; e = e.Next() {
			h := reflect.ValueOf(e.Value.(*cachedStmt).stmt).Elem().FieldByName("pstmt")
			if !h.IsValid() || h.Uint() == 0 {
				return errors.New("the driver's statement has no handle where expected")
			}
			n += int(sqlite3.Xsqlite3_stmt_status(tls, uintptr(h.Uint()), sqlite3.SQLITE_STMTSTATUS_REPREPARE, 1))
		}
		return nil
	})
	return n, err
}

// ExplainKnownArticles returns the plan of the dedup lookup
// (KnownArticles) of urls in workspace ws and guids of source, as a
// connection runs it once it has run the prepared statement often enough
// to cache a plan for any values (explainCached).
func (s *Store) ExplainKnownArticles(ctx context.Context, ws, source int64, urls, guids []string) (string, error) {
	query, args, err := s.d.knownArticles(ws, source, urls, guids)
	if err != nil {
		return "", err
	}
	return s.explainCached(ctx, query, args...)
}

// explainCached returns the plan of query with args as a connection runs
// it once it has run the prepared statement often enough to cache a plan
// for any values: on PostgreSQL the generic plan, under EXPLAIN ANALYZE;
// SQLite has its one plan.
func (s *Store) explainCached(ctx context.Context, query string, args ...any) (string, error) {
	if s.d.name() != Postgres {
		return s.explain(ctx, "", query, args...)
	}
	// EXECUTE takes no parameters of its own statement: the values go as
	// literals.
	params := make([]string, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case driver.Valuer:
			v, err := a.Value()
			if err != nil {
				return "", err
			}
			params[i] = "NULL"
			if v != nil {
				params[i] = pq.QuoteLiteral(fmt.Sprint(v))
			}
		case string:
			params[i] = pq.QuoteLiteral(a)
		default:
			params[i] = fmt.Sprint(a)
		}
	}
	return s.explainGeneric(ctx, s.d.explainPrefix(), s.db.Rebind(query), func(int) []string { return params })
}

// ExplainItemRefs returns the plan of ListItemRefs' statement
// (explainCached).
func (s *Store) ExplainItemRefs(ctx context.Context, ws, cursor int64, limit int) (string, error) {
	q, args := itemRefsQuery(ws, cursor, limit)
	return s.explainCached(ctx, q, args...)
}

// ExplainGeneric returns the plan PostgreSQL caches for query (with $N
// parameters) for any values of its parameters (the generic plan),
// without running it.
func (s *Store) ExplainGeneric(ctx context.Context, query string) (string, error) {
	return s.explainGeneric(ctx, "EXPLAIN ", query, func(n int) []string {
		params := make([]string, n)
		for i := range params {
			params[i] = "NULL"
		}
		return params
	})
}

// explainGeneric prepares query on a connection of its own, makes
// PostgreSQL plan it for any values, and returns the plan of prefix
// EXECUTE with the literals params gives for its number of parameters.
func (s *Store) explainGeneric(ctx context.Context, prefix, query string, params func(n int) []string) (string, error) {
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		return "", err
	}
	defer conn.ExecContext(ctx, `RESET plan_cache_mode`) //nolint:errcheck // the connection goes back to the pool either way
	if _, err := conn.ExecContext(ctx, `PREPARE generic_plan AS `+query); err != nil {
		return "", fmt.Errorf("prepare %s: %w", query, err)
	}
	defer conn.ExecContext(ctx, `DEALLOCATE generic_plan`) //nolint:errcheck // as above
	var n int
	if err := conn.GetContext(ctx, &n, `SELECT cardinality(parameter_types) FROM pg_prepared_statements WHERE name = 'generic_plan'`); err != nil {
		return "", err
	}
	rows, err := conn.QueryContext(ctx, prefix+`EXECUTE generic_plan(`+strings.Join(params(n), ", ")+`)`)
	if err != nil {
		return "", err
	}
	return planText(rows)
}

// ExplainListSources returns the plan of ListSources' statement for
// workspace ws (explainCached).
func (s *Store) ExplainListSources(ctx context.Context, ws int64) (string, error) {
	q, args := sourcesQuery(ws)
	return s.explainCached(ctx, q, args...)
}
