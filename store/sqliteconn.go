package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"modernc.org/sqlite"
)

// msConnector opens the daemon's SQLite connections through the modernc
// driver, wrapped so that every time bound as a parameter is truncated to
// the millisecond before the driver writes it as text.
//
// Why: the driver writes nanoseconds, and SQLite builds disagree on
// julianday() of such text (3.40, Debian's sqlite3 and Python's module,
// rounds a fraction of .9995 s and above otherwise than the daemon's
// build), while indexes are built on julianday(column). A row written
// with nanoseconds could then not be found in the index by another
// client, whose UPDATE failed with "database disk image is malformed".
// With at most three fraction digits every build computes the same
// julianday() (migration 0013 rewrote the older rows).
//
// Each connection also keeps its prepared statements (see stmtCache),
// up to stmts of them; 0 keeps none.
type msConnector struct {
	dsn   string
	drv   *sqlite.Driver
	stmts int
	gate  writeGate // shared by the pool's connections
}

func (c msConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	mc := &msConn{keptConn: keptConn{Conn: conn, driver: "SQLite", finalize: true}, gate: c.gate}
	if c.stmts > 0 {
		var used func() (int, error)
		if st, ok := conn.(sqliteStatus); ok {
			used = func() (int, error) {
				n, _, err := st.Status(sqlite.DBStatusStmtUsed, false)
				return n, err
			}
		}
		mc.stmts = newStmtCache(c.stmts, sqliteStatementBytes, used)
	}
	return mc, nil
}

// sqliteStatus reads a modernc connection's counters.
type sqliteStatus interface {
	Status(op sqlite.DBStatusOp, reset bool) (current, high int, err error)
}

func (c msConnector) Driver() driver.Driver { return c.drv }

// msConn is a modernc connection whose parameters pass CheckNamedValue,
// with its cache of prepared statements and its pool's write gate.
type msConn struct {
	keptConn
	gate writeGate // nil: transactions meet SQLite's busy handler only
}

// CheckNamedValue converts a parameter as database/sql would by default,
// then truncates a time to the millisecond.
func (*msConn) CheckNamedValue(nv *driver.NamedValue) error {
	v, err := driver.DefaultParameterConverter.ConvertValue(nv.Value)
	if err != nil {
		return err
	}
	if t, ok := v.(time.Time); ok {
		v = t.Truncate(time.Millisecond)
	}
	nv.Value = v
	return nil
}

func (c *msConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.gate == nil {
		return c.keptConn.BeginTx(ctx, opts)
	}
	if err := c.gate.enter(ctx); err != nil {
		return nil, err
	}
	tx, err := c.keptConn.BeginTx(ctx, opts)
	if err != nil {
		c.gate.leave()
		return nil, err
	}
	return &gatedTx{Tx: tx, gate: c.gate}, nil
}

// openSQLite opens the daemon's pool on the file at path (dsn is the
// path with the driver's settings), each connection keeping up to stmts
// prepared statements, its transactions queued on one write gate. The file is created first, when it
// does not exist, readable and writable by its owner only: it holds the
// webhook and WebSub secrets, and SQLite creates its -wal and -shm files
// with the database file's mode.
func openSQLite(path, dsn string, stmts int) (*sql.DB, error) {
	c, err := sqliteConnector(path, dsn, stmts)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// sqliteConnector creates the file at path if it is missing and returns
// the connector of dsn: each pool opened from it (sql.OpenDB) shares its
// write gate.
func sqliteConnector(path, dsn string, stmts int) (driver.Connector, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("create database file %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return nil, fmt.Errorf("create database file %s: %w", path, err)
	}
	return msConnector{dsn: dsn, drv: &sqlite.Driver{}, stmts: stmts, gate: newWriteGate()}, nil
}
