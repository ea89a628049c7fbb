package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/dberr"
)

// TestIsDataErrorOnRealErrors provokes each kind of error from the real
// databases: what a statement's values cause is a data error, what the
// database's state causes (read-only, full, unreachable) is not.
func TestIsDataErrorOnRealErrors(t *testing.T) {
	ctx := context.Background()
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		db := probeTable(s)
		data := map[string]error{}
		_, data["unique violation"] = db.Exec(db.Rebind(`INSERT INTO probe (id, v) VALUES (2, ?)`), "taken")
		_, data["not null"] = db.Exec(`INSERT INTO probe (id, v) VALUES (3, NULL)`)
		if s.Dialect() == store.Postgres {
			_, data["NUL in text"] = db.Exec(`INSERT INTO probe (id, v) VALUES (4, $1)`, "a\x00b")
			_, data["value out of range"] = db.Exec(`SELECT 2147483647::int + 1`)
		} else {
			db.MustExec(`CREATE TRIGGER probe_guard BEFORE INSERT ON probe WHEN NEW.v = 'bad' BEGIN SELECT RAISE(ABORT, 'bad value'); END`)
			_, data["trigger RAISE"] = db.Exec(`INSERT INTO probe (id, v) VALUES (5, 'bad')`)
		}
		for name, err := range data {
			if err == nil || !dberr.IsData(err) {
				t.Errorf("%s: %v is not a data error", name, err)
			}
		}

		state := map[string]error{}
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		state["read-only"] = readOnlyInsert(t, s, conn)
		if s.Dialect() == store.Postgres {
			l, _ := net.Listen("tcp", "127.0.0.1:0")
			addr := l.Addr().String()
			l.Close()
			gone, _ := sql.Open("postgres", fmt.Sprintf("postgres://nobody@%s/none?sslmode=disable", addr))
			state["connection refused"] = gone.PingContext(ctx)
			gone.Close()
		} else {
			var pages int
			if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
				t.Fatal(err)
			}
			mustExec(t, conn, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages))
			big := make([]byte, 1<<20)
			_, state["database full"] = conn.ExecContext(ctx, `INSERT INTO probe (id, v) VALUES (7, ?)`, string(big))
			mustExec(t, conn, `PRAGMA max_page_count = 1073741823`)
		}
		state["cancelled"] = context.Canceled
		for name, err := range state {
			if err == nil || dberr.IsData(err) {
				t.Errorf("%s: %v is taken for a data error", name, err)
			}
		}
	})
}

// TestErrorClassesOnRealErrors: each question of the classification
// answers yes to the error it names, provoked from the real database, and
// no to its neighbours.
func TestErrorClassesOnRealErrors(t *testing.T) {
	ctx := context.Background()
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		db := probeTable(s)
		_, unique := db.Exec(db.Rebind(`INSERT INTO probe (id, v) VALUES (2, ?)`), "taken")
		_, primaryKey := db.Exec(db.Rebind(`INSERT INTO probe (id, v) VALUES (1, ?)`), "other")
		_, notNull := db.Exec(`INSERT INTO probe (id, v) VALUES (3, NULL)`)
		_, noTable := db.Exec(`SELECT * FROM no_such_table`)
		_, syntax := db.Exec(`SELEC 1`)
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		readOnly := readOnlyInsert(t, s, conn)
		for _, c := range []struct {
			name      string
			err       error
			unique    bool
			undefined bool
			readOnly  bool
		}{
			{name: "unique violation", err: unique, unique: true},
			{name: "primary key taken", err: primaryKey, unique: true},
			{name: "not null", err: notNull},
			{name: "missing table", err: noTable, undefined: s.Dialect() == store.Postgres}, // SQLite has no code for it
			{name: "syntax error", err: syntax},
			{name: "read-only", err: readOnly, readOnly: true},
			{name: "cancelled", err: context.Canceled},
		} {
			if c.err == nil {
				t.Errorf("%s: the database accepted it", c.name)
				continue
			}
			if got := dberr.IsUniqueViolation(c.err); got != c.unique {
				t.Errorf("%s (%v): unique violation %v, want %v", c.name, c.err, got, c.unique)
			}
			if got := dberr.IsUndefinedTable(c.err); got != c.undefined {
				t.Errorf("%s (%v): undefined table %v, want %v", c.name, c.err, got, c.undefined)
			}
			if got := dberr.IsReadOnly(c.err); got != c.readOnly {
				t.Errorf("%s (%v): read-only %v, want %v", c.name, c.err, got, c.readOnly)
			}
			if dberr.IsNotAuthorized(c.err) || dberr.IsMultipleCommands(c.err) {
				t.Errorf("%s (%v): taken for a refusal of the read-only connection", c.name, c.err)
			}
			if dberr.IsRolledBack(c.err) {
				t.Errorf("%s (%v): taken for a transaction aborted to break a deadlock", c.name, c.err)
			}
		}
	})
}

// mustExec runs a statement the test depends on.
func mustExec(t *testing.T, conn *sql.Conn, query string) {
	t.Helper()
	if _, err := conn.ExecContext(context.Background(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// probeTable creates a table with a NOT NULL UNIQUE column holding
// "taken" in row 1, for provoking errors.
func probeTable(s *store.Store) *sqlx.DB {
	db := s.DB()
	db.MustExec(`CREATE TABLE probe (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)`)
	db.MustExec(db.Rebind(`INSERT INTO probe (id, v) VALUES (1, ?)`), "taken")
	return db
}

// readOnlyInsert is the error of an insert into probe that the database
// refuses for being read-only: in a read-only transaction on PostgreSQL,
// on a query_only connection on SQLite.
func readOnlyInsert(t *testing.T, s *store.Store, conn *sql.Conn) error {
	t.Helper()
	ctx := context.Background()
	if s.Dialect() == store.Postgres {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		_, err = tx.Exec(`INSERT INTO probe (id, v) VALUES (6, 'x')`)
		return err
	}
	mustExec(t, conn, `PRAGMA query_only = ON`)
	defer mustExec(t, conn, `PRAGMA query_only = OFF`)
	_, err := conn.ExecContext(ctx, `INSERT INTO probe (id, v) VALUES (6, 'x')`)
	return err
}
