package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"modernc.org/sqlite"
)

// openStmtPool opens a one-connection pool on a new SQLite file whose
// connection keeps up to stmts prepared statements, with table t.
func openStmtPool(t *testing.T, stmts int) (*sql.DB, *sql.Conn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stmts.db")
	db, err := openSQLite(path, "file:"+path+sqlitePragmas, stmts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return db, conn
}

// cacheOf is conn's statement cache.
func cacheOf(t *testing.T, conn *sql.Conn) *stmtCache {
	t.Helper()
	var c *stmtCache
	if err := conn.Raw(func(dc any) error {
		c = dc.(*msConn).stmts
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// kept is the statement conn keeps for query, nil when none.
func kept(t *testing.T, conn *sql.Conn, query string) *cachedStmt {
	t.Helper()
	c := cacheOf(t, conn)
	if e, ok := c.byText[query]; ok {
		return e.Value.(*cachedStmt)
	}
	return nil
}

// stmtBytes is the memory SQLite counts for conn's prepared statements.
func stmtBytes(t *testing.T, conn *sql.Conn) int {
	t.Helper()
	var n int
	if err := conn.Raw(func(dc any) error {
		var err error
		n, _, err = dc.(*msConn).Conn.(sqliteStatus).Status(sqlite.DBStatusStmtUsed, false)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// values is table t's values in id order.
func values(t *testing.T, conn *sql.Conn) []string {
	t.Helper()
	vs, err := readAll(context.Background(), conn, `SELECT v FROM t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// readAll reads the one text column of query's rows on q (a connection
// or a transaction).
func readAll(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close() //nolint:errcheck // read only: Err is the error that matters
	var vs []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, rows.Err()
}

// One statement serves a committed transaction, a rolled-back one, a run
// outside any, a run that failed on a constraint and a run interrupted
// by its context; every later run still does its work.
func TestSQLiteStatementKeptAcrossTransactionsAndErrors(t *testing.T) {
	ctx := context.Background()
	_, conn := openStmtPool(t, 8)
	const ins = `INSERT INTO t (v) VALUES (?)`
	exec := func(ctx context.Context, tx *sql.Tx, v string) error {
		if tx != nil {
			_, err := tx.ExecContext(ctx, ins, v)
			return err
		}
		_, err := conn.ExecContext(ctx, ins, v)
		return err
	}

	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec(ctx, tx, "committed"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	first := kept(t, conn, ins)
	if first == nil {
		t.Fatal("the INSERT was not kept")
	}

	tx, err = conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec(ctx, tx, "rolled back"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := exec(ctx, nil, "outside"); err != nil {
		t.Fatal(err)
	}
	if err := exec(ctx, nil, "outside"); err == nil {
		t.Fatal("a duplicate value was inserted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := exec(cctx, nil, "cancelled"); !errors.Is(err, context.Canceled) {
		t.Fatalf("run with a cancelled context: %v", err)
	}
	tx, err = conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec(ctx, tx, "after"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	if got := kept(t, conn, ins); got != first {
		t.Errorf("the INSERT was prepared again (%p, first %p)", got, first)
	}
	if got, want := fmt.Sprint(values(t, conn)), "[committed outside after]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}

// A query whose context ends while it steps is interrupted, and its
// statement then answers the next run in full.
func TestSQLiteStatementInterruptedMidStep(t *testing.T) {
	_, conn := openStmtPool(t, 8)
	const count = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT COUNT(*) FROM c`
	var n int64
	if err := conn.QueryRowContext(context.Background(), count, 10).Scan(&n); err != nil || n != 10 {
		t.Fatalf("counted %d (%v), want 10", n, err)
	}
	for _, how := range []string{"exec", "query"} {
		t.Run(how, func(t *testing.T) {
			before := kept(t, conn, count)
			// Some 10^12 steps: it ends only by its deadline.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			var err error
			if how == "exec" {
				_, err = conn.ExecContext(ctx, count, int64(1e12))
			} else {
				var n int64
				err = conn.QueryRowContext(ctx, count, int64(1e12)).Scan(&n)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("interrupted %s: %v", how, err)
			}
			if before == nil || before.busy {
				t.Fatalf("the statement is not kept idle after its interruption: %+v", before)
			}
			if err := conn.QueryRowContext(context.Background(), count, 1000).Scan(&n); err != nil || n != 1000 {
				t.Fatalf("the next run counted %d (%v), want 1000", n, err)
			}
			if kept(t, conn, count) != before {
				t.Error("the statement was prepared again")
			}
		})
	}
}

// A second query of a text whose rows are still open (nested reads in one
// transaction) gets a statement of its own, and both read every row; so
// does a statement evicted while its rows are open, closed with them.
func TestSQLiteStatementBusyWhileRowsOpen(t *testing.T) {
	ctx := context.Background()
	_, conn := openStmtPool(t, 1)
	for _, v := range []string{"a", "b", "c"} {
		if _, err := conn.ExecContext(ctx, `INSERT INTO t (v) VALUES (?)`, v); err != nil {
			t.Fatal(err)
		}
	}
	const sel = `SELECT v FROM t WHERE id >= ? ORDER BY id`
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	outer, err := tx.QueryContext(ctx, sel, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer outer.Close() //nolint:errcheck // closed below, its error checked
	var got []string
	for outer.Next() {
		var v string
		if err := outer.Scan(&v); err != nil {
			t.Fatal(err)
		}
		inner, err := readAll(ctx, tx, sel, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range inner {
			got = append(got, v+w)
		}
		// Evicts the outer query's statement (the cache keeps one) while
		// its rows are open.
		if _, err := tx.ExecContext(ctx, `UPDATE t SET v = v WHERE id = 0`); err != nil {
			t.Fatal(err)
		}
	}
	if err := outer.Err(); err != nil {
		t.Fatal(err)
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(got), "[ab ac bb bc cb cc]"; got != want {
		t.Errorf("nested reads %s, want %s", got, want)
	}
}

// Past its size the cache closes the statements it lets go, those whose
// rows were open when they left too: closing the cache then leaves
// SQLite no statement memory.
func TestSQLiteStatementsClosedWhenEvicted(t *testing.T) {
	ctx := context.Background()
	_, conn := openStmtPool(t, 2)
	open, err := conn.QueryContext(ctx, `SELECT v FROM t WHERE id > 100`)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close() //nolint:errcheck // closed below, its error checked
	for i := range 6 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf(`INSERT INTO t (v) VALUES ('v%d')`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cacheOf(t, conn).len(); n != 2 {
		t.Errorf("the cache holds %d statements, want 2", n)
	}
	if err := open.Close(); err != nil {
		t.Fatal(err)
	}
	if n := stmtBytes(t, conn); n == 0 {
		t.Fatal("SQLite counts no statement memory with two statements kept")
	}
	if err := conn.Raw(func(dc any) error { return dc.(*msConn).stmts.close() }); err != nil {
		t.Fatal(err)
	}
	if n := stmtBytes(t, conn); n != 0 {
		t.Errorf("%d bytes of statements left open once the cache is closed", n)
	}
}

// The cache holds no more statement memory than its budget: large
// multi-row INSERTs of many sizes evict each other.
func TestSQLiteStatementsBoundedByMemory(t *testing.T) {
	ctx := context.Background()
	_, conn := openStmtPool(t, 1000)
	for rows := 400; rows < 460; rows++ {
		args := make([]any, rows)
		for i := range args {
			args[i] = fmt.Sprintf("r%d-%d", rows, i)
		}
		if _, err := conn.ExecContext(ctx, multiRowInsert(`INSERT INTO t (v) VALUES `, 1, rows, ``), args...); err != nil {
			t.Fatal(err)
		}
	}
	if n := stmtBytes(t, conn); n > sqliteStatementBytes {
		t.Errorf("statements take %d bytes, over the budget of %d", n, sqliteStatementBytes)
	}
	if n := cacheOf(t, conn).len(); n < 2 || n >= 60 {
		t.Errorf("the cache holds %d statements, want some but not all 60", n)
	}
}

// A statement kept on one connection sees a column another connection
// added since: SQLite prepares it again after a schema change.
func TestSQLiteStatementAfterSchemaChange(t *testing.T) {
	ctx := context.Background()
	db, conn := openStmtPool(t, 8)
	db.SetMaxOpenConns(2)
	const sel = `SELECT * FROM t`
	cols := func() []string {
		rows, err := conn.QueryContext(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		c, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if got := fmt.Sprint(cols()); got != "[id v]" {
		t.Fatalf("columns %s", got)
	}
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, `ALTER TABLE t ADD COLUMN w INTEGER NOT NULL DEFAULT 7`); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cols()); got != "[id v w]" {
		t.Errorf("columns after the migration %s, want [id v w]", got)
	}
}

// Only texts of one statement are kept, and no PRAGMA: one may take
// effect when prepared, so a kept one run again could do nothing.
func TestSQLiteStatementCacheable(t *testing.T) {
	for _, c := range []struct {
		query string
		want  bool
	}{
		{`SELECT v FROM t WHERE id = ?`, true},
		{"\n\tINSERT INTO t (v) VALUES (?)", true},
		{`PRAGMA defer_foreign_keys = ON`, false},
		{`  pragma foreign_keys`, false},
		{"CREATE TABLE a (x);\nCREATE TABLE b (y)", false},
		{`SELECT 1;`, false},
	} {
		if got := cacheable(c.query); got != c.want {
			t.Errorf("cacheable(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}
