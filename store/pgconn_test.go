package store_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/lib/pq"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// preparedIn counts the prepared statements of conn's server session (a
// statement without parameters, which no connection keeps).
func preparedIn(t *testing.T, conn *sql.Conn) int {
	t.Helper()
	var n int
	if err := conn.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM pg_prepared_statements`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pgSession opens a store on a new PostgreSQL database whose connections
// keep cache statements (store.Options.StatementCache), and one of its
// connections.
func pgSession(t *testing.T, cache int) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	s, err := store.OpenWith(ctx, testdb.URL(t, store.Postgres), store.Options{StatementCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestPostgresConnectionsKeepPreparedStatements: a statement with
// parameters is prepared once per connection and run again as prepared,
// with the right results each time; a negative StatementCache keeps none.
func TestPostgresConnectionsKeepPreparedStatements(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		cache int
		want  int
	}{{"default", 0, 2}, {"none", -1, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			conn := pgSession(t, tc.cache)
			for i := range 3 {
				var got int
				if err := conn.QueryRowContext(ctx, `SELECT $1::integer * 2`, i).Scan(&got); err != nil || got != 2*i {
					t.Fatalf("run %d: %d, %v; want %d", i, got, err, 2*i)
				}
				if _, err := conn.ExecContext(ctx, `SELECT pg_catalog.set_config('application_name', $1, false)`, "run"); err != nil {
					t.Fatal(err)
				}
			}
			if n := preparedIn(t, conn); n != tc.want {
				t.Fatalf("%d statements prepared in the session after three runs of two; want %d", n, tc.want)
			}
		})
	}
}

// TestPostgresKeptStatementAfterItsColumnsChange: a kept statement whose
// result columns a migration changed fails once (PostgreSQL cannot run
// it as prepared), and the next run prepares it again and succeeds.
func TestPostgresKeptStatementAfterItsColumnsChange(t *testing.T) {
	ctx := context.Background()
	conn := pgSession(t, 0)
	for _, q := range []string{`CREATE TABLE kept_cols (a integer)`, `INSERT INTO kept_cols VALUES (1)`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT * FROM kept_cols WHERE a = $1`
	columns := func() ([]string, error) {
		rows, err := conn.QueryContext(ctx, q, 1)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		for rows.Next() {
		}
		if err == nil {
			err = rows.Err()
		}
		return cols, err
	}
	if cols, err := columns(); err != nil || len(cols) != 1 {
		t.Fatalf("before: %v, %v", cols, err)
	}
	if _, err := conn.ExecContext(ctx, `ALTER TABLE kept_cols ADD COLUMN b integer`); err != nil {
		t.Fatal(err)
	}
	_, err := columns()
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Fatalf("first run after the change: %v, want PostgreSQL's refusal to run the statement as prepared", err)
	}
	if cols, err := columns(); err != nil || len(cols) != 2 {
		t.Fatalf("next run: columns %v, %v; want a, b", cols, err)
	}
}
