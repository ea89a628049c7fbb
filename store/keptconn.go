package store

import (
	"context"
	"database/sql/driver"
	"errors"
)

// driverConn is the method set of a driver's connection that database/sql
// uses and the store's connections forward; modernc's and lib/pq's both
// have it.
type driverConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// keptConn is a driver's connection with its cache of prepared statements
// (nil: none): what the SQLite and the PostgreSQL connections share.
type keptConn struct {
	driver.Conn
	stmts *stmtCache
	// driver names the driver in errors.
	driver string
	// argsOnly keeps only statements with parameters.
	argsOnly bool
	// stale tells which errors of a kept statement mean it must be
	// prepared again (nil: none do).
	stale staleFunc
	// finalize closes the kept statements before the connection: SQLite
	// keeps a connection with unfinalized statements open, while
	// PostgreSQL drops a session's statements with it (closing each
	// first would cost a round trip apiece).
	finalize bool
}

func (c *keptConn) inner() (driverConn, error) {
	dc, ok := c.Conn.(driverConn)
	if !ok {
		return nil, errors.New("the " + c.driver + " driver's connection lacks a method the store uses")
	}
	return dc, nil
}

// keeps reports whether query runs on a kept statement.
func (c *keptConn) keeps(query string, args []driver.NamedValue) bool {
	return c.stmts != nil && (!c.argsOnly || len(args) > 0) && cacheable(query)
}

func (c *keptConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	dc, err := c.inner()
	if err != nil {
		return nil, err
	}
	if !c.keeps(query, args) {
		return dc.ExecContext(ctx, query, args)
	}
	return c.stmts.exec(ctx, dc, query, args, c.stale)
}

func (c *keptConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	dc, err := c.inner()
	if err != nil {
		return nil, err
	}
	if !c.keeps(query, args) {
		return dc.QueryContext(ctx, query, args)
	}
	return c.stmts.query(ctx, dc, query, args, c.stale)
}

func (c *keptConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	dc, err := c.inner()
	if err != nil {
		return nil, err
	}
	return dc.BeginTx(ctx, opts)
}

func (c *keptConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	dc, err := c.inner()
	if err != nil {
		return nil, err
	}
	return dc.PrepareContext(ctx, query)
}

func (c *keptConn) Ping(ctx context.Context) error {
	dc, err := c.inner()
	if err != nil {
		return err
	}
	return dc.Ping(ctx)
}

func (c *keptConn) ResetSession(ctx context.Context) error {
	dc, err := c.inner()
	if err != nil {
		return err
	}
	return dc.ResetSession(ctx)
}

func (c *keptConn) IsValid() bool {
	dc, err := c.inner()
	return err == nil && dc.IsValid()
}

// Close closes the connection, and first its kept statements when it
// must (finalize).
func (c *keptConn) Close() error {
	var err error
	if c.stmts != nil && c.finalize {
		err = c.stmts.close()
	}
	return errors.Join(err, c.Conn.Close())
}
