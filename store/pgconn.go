package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/lib/pq"
)

// pgConnector opens the daemon's PostgreSQL connections through lib/pq,
// each keeping up to stmts prepared statements (see stmtCache; 0 keeps
// none).
type pgConnector struct {
	inner driver.Connector
	stmts int
}

func newPGConnector(dsn string, stmts int) (pgConnector, error) {
	c, err := pq.NewConnector(dsn)
	if err != nil {
		return pgConnector{}, fmt.Errorf("open PostgreSQL: %w", err)
	}
	return pgConnector{inner: c, stmts: stmts}, nil
}

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc := &pgConn{Conn: conn}
	if c.stmts > 0 {
		pc.stmts = newStmtCache(c.stmts, 0, nil)
	}
	return pc, nil
}

func (c pgConnector) Driver() driver.Driver { return c.inner.Driver() }

// pgDriverConn is lib/pq's connection's method set that database/sql
// uses.
type pgDriverConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

// pgConn is a lib/pq connection with its cache of prepared statements
// (nil: none).
//
// Only statements with parameters are kept: lib/pq sends one without
// them in the simple protocol, one round trip, and a text of several
// statements (a migration) could not be prepared at all. A kept
// statement takes one round trip a run, as an unprepared one does with
// binary_parameters, and the server skips parsing and analysing it and,
// once it has settled on a generic plan, planning it.
type pgConn struct {
	driver.Conn
	stmts *stmtCache
}

func (c *pgConn) inner() (pgDriverConn, error) {
	pc, ok := c.Conn.(pgDriverConn)
	if !ok {
		return nil, errors.New("the PostgreSQL driver's connection lacks a method the store uses")
	}
	return pc, nil
}

// stalePGStatement: a prepared statement that the server no longer runs
// as prepared. After a migration changes the columns a statement returns
// (another replica's, say), PostgreSQL refuses to run it ("cached plan
// must not change result type", feature_not_supported), and a pooler or
// DISCARD may have removed it (invalid_sql_statement_name). Either way
// it is prepared again at its next run.
func stalePGStatement(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && (pe.Code == "0A000" || pe.Code == "26000")
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	pc, err := c.inner()
	if err != nil {
		return nil, err
	}
	if c.stmts == nil || len(args) == 0 || !cacheable(query) {
		return pc.ExecContext(ctx, query, args)
	}
	return c.stmts.exec(ctx, pc, query, args, stalePGStatement)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	pc, err := c.inner()
	if err != nil {
		return nil, err
	}
	if c.stmts == nil || len(args) == 0 || !cacheable(query) {
		return pc.QueryContext(ctx, query, args)
	}
	return c.stmts.query(ctx, pc, query, args, stalePGStatement)
}

func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	pc, err := c.inner()
	if err != nil {
		return nil, err
	}
	return pc.BeginTx(ctx, opts)
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	pc, err := c.inner()
	if err != nil {
		return nil, err
	}
	return pc.PrepareContext(ctx, query)
}

func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	pc, err := c.inner()
	if err != nil {
		return err
	}
	return pc.CheckNamedValue(nv)
}

func (c *pgConn) Ping(ctx context.Context) error {
	pc, err := c.inner()
	if err != nil {
		return err
	}
	return pc.Ping(ctx)
}

func (c *pgConn) ResetSession(ctx context.Context) error {
	pc, err := c.inner()
	if err != nil {
		return err
	}
	return pc.ResetSession(ctx)
}

func (c *pgConn) IsValid() bool {
	pc, err := c.inner()
	return err == nil && pc.IsValid()
}

// Close closes the kept statements, then the connection.
func (c *pgConn) Close() error {
	var err error
	if c.stmts != nil && c.IsValid() {
		err = c.stmts.close()
	}
	return errors.Join(err, c.Conn.Close())
}
