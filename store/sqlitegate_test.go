package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// openGatePool opens the daemon's kind of SQLite pool on a new file.
func openGatePool(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gate.db")
	db, err := openSQLite(path, "file:"+path+sqlitePragmas, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestSQLiteWritersQueueOnTheGate: while one transaction is open, a
// second waits in the process, not in SQLite's busy handler: it gives up
// with its context's error, saying what it waited for, and it begins once
// the first commits.
func TestSQLiteWritersQueueOnTheGate(t *testing.T) {
	db := openGatePool(t)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	first, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.ExecContext(ctx, `INSERT INTO t (v) VALUES ('first')`); err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if tx, err := db.BeginTx(short, nil); err == nil {
		_ = tx.Rollback()
		t.Fatal("a second transaction began while the first held the write lock")
	} else if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "write lock") {
		t.Fatalf("second transaction: %v, want the context's deadline while waiting for the write lock", err)
	}

	began := make(chan error, 1)
	go func() {
		tx, err := db.BeginTx(ctx, nil)
		if err == nil {
			_, err = tx.ExecContext(ctx, `INSERT INTO t (v) VALUES ('second')`)
			err = errors.Join(err, tx.Commit())
		}
		began <- err
	}()
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-began; err != nil {
		t.Fatalf("the queued transaction after the first committed: %v", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows: %d, %v; want both transactions' rows", n, err)
	}
}

// TestSQLiteGateLeftOnRollbackAndCancel: a rolled-back transaction and
// one whose context ends release the gate once each, so later writers
// are not locked out (nor let in two at a time).
func TestSQLiteGateLeftOnRollbackAndCancel(t *testing.T) {
	db := openGatePool(t)
	db.SetMaxOpenConns(4)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback()
	_ = tx.Rollback() // a second rollback must not leave the gate again
	cctx, cancel := context.WithCancel(ctx)
	tx, err = db.BeginTx(cctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()        // database/sql rolls the transaction back itself
	_ = tx.Commit() // fails: the transaction is rolled back, by Commit or by database/sql

	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for range 40 {
		wg.Go(func() {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				errs <- err
				return
			}
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil {
				errs <- errors.Join(err, tx.Rollback())
				return
			}
			// Two writers inside at once would both read n and write n.
			if _, err := tx.ExecContext(ctx, `INSERT INTO t (v) VALUES (?)`, n); err != nil {
				errs <- errors.Join(err, tx.Rollback())
				return
			}
			errs <- tx.Commit()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a writer after the rollbacks: %v", err)
		}
	}
	var rows, distinct int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT v) FROM t`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != 40 || distinct != 40 {
		t.Fatalf("%d rows with %d distinct counts; want 40 writers one after the other", rows, distinct)
	}
}
