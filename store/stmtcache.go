package store

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"log/slog"
	"reflect"
	"strings"
)

// DefaultSQLiteStatements is how many prepared statements each SQLite
// connection keeps when Options.StatementCache is 0: the dozen or so
// statements of a poll, each multi-row INSERT once per number of rows
// it is sent with, and the API's reads.
const DefaultSQLiteStatements = 128

// sqliteStatementBytes caps the memory of one connection's prepared
// statements as SQLite counts it, whatever their number: a multi-row
// INSERT costs about half a kilobyte a row (the story term index's of a
// 20-article save, 240 rows, 136 KB), and its texts differ with the
// number of rows, so a count alone would let a connection keep many
// megabytes of them. A poll's statements take about 0.4 MB.
const sqliteStatementBytes = 1 << 20

// DefaultPostgresStatements is how many prepared statements each
// PostgreSQL connection keeps when Options.StatementCache is 0. Each is
// a prepared statement of the server session, with its parse tree and
// plans, so the bound is lower than SQLite's: a poll's statements, with
// a few sizes of its multi-row ones.
const DefaultPostgresStatements = 64

// statements is how many prepared statements a connection keeps under
// o.StatementCache: 0 means def, a negative number none.
func (o Options) statements(def int) int {
	switch {
	case o.StatementCache == 0:
		return def
	case o.StatementCache < 0:
		return 0
	}
	return o.StatementCache
}

// stmtCache keeps one connection's prepared statements by SQL text, the
// least recently used evicted past max.
//
// Why: database/sql hands every ExecContext and QueryContext of the store
// to the connection with its text, and the drivers prepared each one
// anew. SQLite parsed it and generated its program again, with the
// programs of the triggers it fires (the full-text index's among them),
// about a twentieth of a poll's CPU; PostgreSQL parsed, analysed and
// planned it again in the server, for each of a save's two dozen
// statements. A driver keeps a statement only for the life of a
// driver.Stmt, so the connection keeps those.
//
// SQLite compiles with sqlite3_prepare_v2 and prepares a statement again
// by itself when the schema changed since (a migration on another
// connection); PostgreSQL plans a prepared statement again after a
// schema change, and a statement whose result columns changed fails
// once and is dropped (see stmtConn). The cache is used only under
// database/sql's lock of its connection, one call at a time, and needs
// no lock of its own.
type stmtCache struct {
	max int
	// maxBytes bounds used(), the memory of the connection's statements
	// (nil: the count alone bounds the cache).
	maxBytes int
	used     func() (int, error)
	// lru holds *cachedStmt, the most recently used first.
	lru    *list.List
	byText map[string]*list.Element
}

// cachedStmt is one prepared statement of a stmtCache.
type cachedStmt struct {
	text string
	stmt driver.Stmt
	// busy: rows read from the statement are open, so it cannot run
	// again until they are closed (a second query of the same text then
	// prepares a statement of its own).
	busy bool
	// evicted: it left the cache while busy, and is closed with its rows.
	evicted bool
}

func newStmtCache(max, maxBytes int, used func() (int, error)) *stmtCache {
	return &stmtCache{max: max, maxBytes: maxBytes, used: used, lru: list.New(), byText: make(map[string]*list.Element)}
}

// cacheable: a text of one statement, not a PRAGMA. The driver runs a
// text of several statements by preparing each in turn at every run, so
// keeping one would save nothing; a ';' anywhere (migrations) keeps the
// text out. A PRAGMA may take effect when it is prepared rather than when
// it runs (SQLite says so, and varies by pragma and release): run again
// without being prepared again, it might do nothing.
func cacheable(query string) bool {
	q := strings.TrimSpace(query)
	return !strings.Contains(q, ";") && !(len(q) >= 6 && strings.EqualFold(q[:6], "PRAGMA"))
}

// get returns the idle statement of query, preparing it with prepare and
// keeping it when it is not in the cache; nil, nil when the cached one is
// busy.
func (c *stmtCache) get(ctx context.Context, query string, prepare func(context.Context, string) (driver.Stmt, error)) (*cachedStmt, error) {
	if e, ok := c.byText[query]; ok {
		cs := e.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		return cs, nil
	}
	st, err := prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	cs := &cachedStmt{text: query, stmt: st}
	c.byText[query] = c.lru.PushFront(cs)
	for c.lru.Len() > 1 && (c.lru.Len() > c.max || c.overBudget()) {
		// Not the caller's error: its own statement is ready. The driver
		// resets a statement after each run, and finalizing a reset
		// statement reports nothing short of misuse.
		if err := c.evict(c.lru.Back()); err != nil {
			slog.Warn("close an evicted prepared statement", "err", err)
		}
	}
	return cs, nil
}

// overBudget: the connection's statements take more memory than
// maxBytes. It is asked only when a statement was prepared.
func (c *stmtCache) overBudget() bool {
	if c.used == nil {
		return false
	}
	n, err := c.used()
	return err == nil && n > c.maxBytes
}

// evict takes e out of the cache and closes its statement, or leaves that
// to its rows when they are open.
func (c *stmtCache) evict(e *list.Element) error {
	cs := c.lru.Remove(e).(*cachedStmt)
	delete(c.byText, cs.text)
	if cs.busy {
		cs.evicted = true
		return nil
	}
	return cs.stmt.Close()
}

// close closes every statement, when the connection closes.
func (c *stmtCache) close() error {
	var errs []error
	for c.lru.Len() > 0 {
		errs = append(errs, c.evict(c.lru.Front()))
	}
	return errors.Join(errs...)
}

// len is how many statements the cache holds.
func (c *stmtCache) len() int { return c.lru.Len() }

// stmtConn is what a stmtCache needs of a driver's connection.
type stmtConn interface {
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
}

// stale reports, of an error of a cached statement, that the statement
// cannot run again and must be prepared anew (nil: none can be).
type staleFunc func(error) bool

// drop takes the statement of query out of the cache after a run that
// stale says it cannot recover from; busy, it is closed with its rows.
func (c *stmtCache) drop(query string, err error, stale staleFunc) {
	if stale == nil || !stale(err) {
		return
	}
	if e, ok := c.byText[query]; ok {
		if cerr := c.evict(e); cerr != nil {
			slog.Warn("close a stale prepared statement", "err", cerr)
		}
	}
}

// exec runs query with args on its cached statement.
func (c *stmtCache) exec(ctx context.Context, sc stmtConn, query string, args []driver.NamedValue, stale staleFunc) (driver.Result, error) {
	cs, err := c.get(ctx, query, sc.PrepareContext)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return sc.ExecContext(ctx, query, args)
	}
	ex, ok := cs.stmt.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("the database driver's statement lacks ExecContext")
	}
	// The drivers leave a statement ready for the next run after every
	// run, failed or interrupted ones too.
	res, err := ex.ExecContext(ctx, args)
	if err != nil {
		c.drop(query, err, stale)
	}
	return res, err
}

// query runs query with args on its cached statement, which stays busy
// until the rows are closed.
func (c *stmtCache) query(ctx context.Context, sc stmtConn, query string, args []driver.NamedValue, stale staleFunc) (driver.Rows, error) {
	cs, err := c.get(ctx, query, sc.PrepareContext)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return sc.QueryContext(ctx, query, args)
	}
	q, ok := cs.stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("the database driver's statement lacks QueryContext")
	}
	r, err := q.QueryContext(ctx, args)
	if err != nil {
		c.drop(query, err, stale)
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: r, cs: cs}, nil
}

// cachedRows are rows read from a cached statement; closing them frees
// the statement for the next run (the driver resets it). They answer
// database/sql's questions about column types as the driver's rows do,
// or say "not known" where those cannot tell.
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	cs := r.cs
	if cs == nil {
		return nil
	}
	r.cs = nil
	err := r.Rows.Close()
	cs.busy = false
	if cs.evicted {
		err = errors.Join(err, cs.stmt.Close())
	}
	return err
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if x, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return x.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if x, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return x.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return x.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return x.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return x.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}
