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
	pc := &pgConn{keptConn{Conn: conn, driver: "PostgreSQL", argsOnly: true, stale: stalePGStatement}}
	if c.stmts > 0 {
		pc.stmts = newStmtCache(c.stmts, 0, nil)
	}
	return pc, nil
}

func (c pgConnector) Driver() driver.Driver { return c.inner.Driver() }

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
	keptConn
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

// CheckNamedValue is lib/pq's, which takes its array and other types.
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	nc, ok := c.Conn.(driver.NamedValueChecker)
	if !ok {
		return errors.New("the PostgreSQL driver's connection lacks a method the store uses")
	}
	return nc.CheckNamedValue(nv)
}
