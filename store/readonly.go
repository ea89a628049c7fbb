package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
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
	dialect string
}

// OpenReadOnly connects to databaseURL read-only. It never creates or
// migrates a database.
func OpenReadOnly(ctx context.Context, databaseURL string) (*ReadOnly, error) {
	dialect, dsn, err := ParseURL(databaseURL)
	if err != nil {
		return nil, err
	}
	var db *sqlx.DB
	switch dialect {
	case SQLite:
		if _, err := os.Stat(dsn); err != nil {
			return nil, fmt.Errorf("no SQLite database at %s (run `feedpoller migrate` to create one): %w", dsn, err)
		}
		db, err = sqlx.Open("sqlite", "file:"+dsn+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)&_time_format=sqlite")
	case Postgres:
		u, perr := url.Parse(dsn)
		if perr != nil {
			return nil, fmt.Errorf("database URL %s: %w", RedactURL(databaseURL), perr)
		}
		q := u.Query()
		q.Set("default_transaction_read_only", "on")
		q.Set("standard_conforming_strings", "on")
		if q.Get("application_name") == "" {
			q.Set("application_name", "feedpoller sql")
		}
		u.RawQuery = q.Encode()
		db, err = sqlx.Open("postgres", u.String())
	}
	if err != nil {
		return nil, fmt.Errorf("open %s database %s read-only: %w", dialect, RedactURL(databaseURL), err)
	}
	db.SetMaxOpenConns(1)
	if err := connect(ctx, db, dialect, databaseURL, " read-only"); err != nil {
		return nil, err
	}
	return &ReadOnly{db: db, dialect: dialect}, nil
}

// Dialect is "postgres" or "sqlite".
func (r *ReadOnly) Dialect() string { return r.dialect }

// Close closes the connection.
func (r *ReadOnly) Close() error { return r.db.Close() }

// Query runs one read-only SQL statement and calls row for the header and
// then each row, values rendered as text. A query that is not one reading
// statement fails with an error wrapping ErrNotReadOnly; one the database
// refuses (a write that got past the check) fails with the database's
// reason.
func (r *ReadOnly) Query(ctx context.Context, query string, row func([]string) error) error {
	if err := checkReadQuery(r.dialect, query); err != nil {
		return err
	}
	return r.run(ctx, query, row)
}

// run hands the query to the read-only connection as it is: the layers
// below checkReadQuery, which tests call directly.
func (r *ReadOnly) run(ctx context.Context, query string, row func([]string) error) error {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("query: connect: %w", err)
	}
	defer conn.Close()
	var rows *sql.Rows
	switch r.dialect {
	case SQLite:
		if err := conn.Raw(installReadAuthorizer); err != nil {
			return fmt.Errorf("query: %w", err)
		}
		// A single SELECT reads one consistent snapshot without a
		// transaction; BEGIN would need the transaction control the
		// authorizer refuses.
		rows, err = conn.QueryContext(ctx, query)
	case Postgres:
		tx, terr := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if terr != nil {
			return fmt.Errorf("query: begin: %w", terr)
		}
		defer tx.Rollback()
		// Prepared, the query goes through the extended protocol, whose
		// Parse message holds exactly one command.
		stmt, perr := tx.PrepareContext(ctx, query)
		if perr != nil {
			return refusal(perr)
		}
		defer stmt.Close()
		rows, err = stmt.QueryContext(ctx)
	}
	if err != nil {
		return refusal(err)
	}
	defer rows.Close()
	return render(rows, row)
}

// refusal explains the database's refusal of a write.
func refusal(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "not authorized"):
		return fmt.Errorf("query refused by the read-only connection, which only reads tables "+
			"(no writes, ATTACH, transaction control, or PRAGMAs but the schema-reading ones): %w", err)
	case strings.Contains(msg, "read-only"), strings.Contains(msg, "readonly"), strings.Contains(msg, "multiple commands"):
		return fmt.Errorf("query refused by the read-only connection: %w", err)
	}
	return fmt.Errorf("query: %w", err)
}

// readPragmas are the PRAGMAs that only describe the schema.
var readPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true, "index_info": true,
	"index_xinfo": true, "foreign_key_list": true, "database_list": true, "collation_list": true,
	"function_list": true, "module_list": true, "pragma_list": true, "compile_options": true,
}

// installReadAuthorizer makes the SQLite connection refuse, while a
// statement is compiled, everything but reading: writes, schema changes,
// ATTACH and DETACH (VACUUM INTO compiles as an ATTACH), transaction
// control and PRAGMAs other than the schema-reading ones.
func installReadAuthorizer(driverConn any) error {
	reg, ok := driverConn.(sqlite.AuthorizerRegisterer)
	if !ok {
		return errors.New("the SQLite driver offers no authorizer")
	}
	return reg.RegisterAuthorizer(func(action sqlite.AuthorizerActionCode, arg1, _, _, _ string) sqlite.AuthorizerReturnCode {
		switch action {
		case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive:
			return sqlite.AuthorizerOK
		case sqlite.AuthPragma:
			if readPragmas[strings.ToLower(arg1)] {
				return sqlite.AuthorizerOK
			}
		}
		return sqlite.AuthorizerDeny
	})
}

// render calls row for the column names and then for each row.
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
