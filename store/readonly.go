package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/store/dberr"
)

// ReadOnly is a database connection that cannot change anything: the one
// `feedpoller sql` queries through. It is separate from the daemon's pool
// and read-only by construction, in layers:
//
//   - one statement, starting with a reading keyword (checkReadQuery);
//   - SQLite: the file opened with mode=ro and query_only, and an
//     authorizer that allows reading tables and calling functions only (no
//     ATTACH, which VACUUM INTO also is, no writes, no transaction control,
//     no PRAGMA but the schema-reading ones);
//   - PostgreSQL: a session whose transactions are read-only
//     (default_transaction_read_only), the query run in a READ ONLY
//     transaction as a prepared statement, which the server refuses to
//     hold more than one command.
//
// A PostgreSQL role that may only SELECT (see the README) closes what a
// read-only transaction leaves open to a superuser, such as server
// functions with side effects.
type ReadOnly struct {
	db      *sqlx.DB
	d       dialect
	timeout time.Duration
}

// DefaultQueryTimeout bounds a `feedpoller sql` statement when no
// timeout is given.
const DefaultQueryTimeout = time.Minute

// readLockTimeout bounds how long a `feedpoller sql` statement waits for a
// lock (PostgreSQL): a query queued behind a migration's lock would
// otherwise hold up every statement queued behind it in turn.
const readLockTimeout = 2 * time.Second

// OpenReadOnly connects to databaseURL read-only, with statements bounded
// by DefaultQueryTimeout. It never creates or migrates a database.
func OpenReadOnly(ctx context.Context, databaseURL string) (*ReadOnly, error) {
	return OpenReadOnlyWith(ctx, databaseURL, 0)
}

// OpenReadOnlyWith connects to databaseURL read-only; a statement is
// stopped after timeout (0: DefaultQueryTimeout), by the server itself on
// PostgreSQL (statement_timeout, with lock_timeout and
// idle_in_transaction_session_timeout beside it) and by cancelling it in
// both databases.
func OpenReadOnlyWith(ctx context.Context, databaseURL string, timeout time.Duration) (*ReadOnly, error) {
	if timeout <= 0 {
		timeout = DefaultQueryTimeout
	}
	name, dsn, err := ParseURL(databaseURL)
	if err != nil {
		return nil, err
	}
	d := dialectNamed(name)
	db, err := d.openReadOnly(dsn, timeout)
	if err != nil {
		return nil, fmt.Errorf("open %s database %s read-only: %w", name, RedactURL(databaseURL), err)
	}
	db.SetMaxOpenConns(1)
	if err := connect(ctx, db, name, databaseURL, " read-only"); err != nil {
		return nil, err
	}
	return &ReadOnly{db: db, d: d, timeout: timeout}, nil
}

// Dialect is "postgres" or "sqlite".
func (r *ReadOnly) Dialect() string { return r.d.name() }

// Close closes the connection.
func (r *ReadOnly) Close() error { return r.db.Close() }

// Query runs one read-only SQL statement and calls row for the header and
// then each row, values rendered as text. A query that is not one reading
// statement fails with an error wrapping ErrNotReadOnly; one the database
// refuses (a write that got past the check) fails with the database's
// reason.
func (r *ReadOnly) Query(ctx context.Context, query string, row func([]string) error) error {
	if err := checkReadQuery(r.d.name(), query); err != nil {
		return err
	}
	return r.run(ctx, query, row)
}

// run hands the query to the read-only connection as it is: the layers
// below checkReadQuery, which tests call directly.
func (r *ReadOnly) run(ctx context.Context, query string, row func([]string) error) error {
	// A little past the server's own statement_timeout, whose error
	// names the reason, for when the server cannot be reached to stop it.
	ctx, cancel := context.WithTimeout(ctx, r.timeout+time.Second)
	defer cancel()
	err := r.query(ctx, query, row)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("query stopped after %s, the time a statement may take here (feedpoller sql --timeout): %w", r.timeout, err)
	}
	return err
}

func (r *ReadOnly) query(ctx context.Context, query string, row func([]string) error) error {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("query: connect: %w", err)
	}
	defer conn.Close()
	rows, done, err := r.d.queryReadOnly(ctx, conn, query)
	if err != nil {
		return refusal(err)
	}
	defer done()
	defer rows.Close()
	return render(rows, row)
}

// refusal explains the database's refusal of a write, told by the error's
// code (see dberr) or, on SQLite, by the authorizer having denied it.
func refusal(err error) error {
	var denied *deniedError
	switch {
	case dberr.IsNotAuthorized(err), errors.As(err, &denied):
		return fmt.Errorf("query refused by the read-only connection, which only reads tables "+
			"(no writes, ATTACH, transaction control, or PRAGMAs but the schema-reading ones): %w", err)
	case dberr.IsReadOnly(err), dberr.IsMultipleCommands(err):
		return fmt.Errorf("query refused by the read-only connection: %w", err)
	}
	return fmt.Errorf("query: %w", err)
}

// render calls row for the column names and then for each row, values as
// text: NULL, times in RFC 3339.
func render(rows *sql.Rows, row func([]string) error) error {
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := row(cols); err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("query: %w", err)
		}
		out := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				out[i] = "NULL"
			case []byte:
				out[i] = string(x)
			case time.Time:
				// RFC 3339 in UTC, as the API writes times, rather than
				// Go's own "2006-01-02 15:04:05 +0000 UTC".
				out[i] = x.UTC().Format(time.RFC3339Nano)
			default:
				out[i] = fmt.Sprint(x)
			}
		}
		if err := row(out); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return nil
}
