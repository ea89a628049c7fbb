// Package store holds every SQL statement of feedpoller, for PostgreSQL
// (lib/pq) and the embedded SQLite default (modernc.org/sqlite, pure Go).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"  // PostgreSQL driver
	_ "modernc.org/sqlite" // embedded SQLite driver, no cgo

	"github.com/feedpoller/feedpoller/migrations"
)

// Dialects.
const (
	Postgres = "postgres"
	SQLite   = "sqlite"
)

// DefaultSQLitePath is where the embedded database lives when no URL is
// configured.
const DefaultSQLitePath = "data/feedpoller.db"

// ErrNotFound is returned when a row does not exist (or is not visible to
// the workspace asking).
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a unique constraint refuses a write.
var ErrConflict = errors.New("already exists")

// Store is the database of one daemon.
type Store struct {
	db      *sqlx.DB
	dialect string
	writes  writeHealth
}

// Options tunes the connection pool.
type Options struct {
	// MaxOpenConns caps the connections to the database; 0 keeps the
	// default: 20 on PostgreSQL, 4 on SQLite (one writer at a time).
	MaxOpenConns int
	// MaxIdleConns is how many connections stay open while idle; 0 means
	// as many as MaxOpenConns, so a busy daemon never closes a connection
	// it needs again a moment later (every PostgreSQL session opened costs
	// a backend process and an authentication round).
	MaxIdleConns int
}

// Open connects to databaseURL with the default pool: see OpenWith.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	return OpenWith(ctx, databaseURL, Options{})
}

// OpenWith connects to databaseURL: empty → the SQLite file under ./data/;
// postgres:// or postgresql:// → PostgreSQL; sqlite:PATH, file:PATH or a
// plain path → that SQLite file (see ParseURL).
func OpenWith(ctx context.Context, databaseURL string, opts Options) (*Store, error) {
	dialect, dsn, err := ParseURL(databaseURL)
	if err != nil {
		return nil, err
	}
	maxOpen := opts.MaxOpenConns
	var db *sqlx.DB
	switch dialect {
	case Postgres:
		if maxOpen <= 0 {
			maxOpen = 20
		}
		db, err = sqlx.Open("postgres", withBinaryParameters(dsn))
		if err == nil {
			db.SetConnMaxIdleTime(5 * time.Minute)
		}
	case SQLite:
		if maxOpen <= 0 {
			maxOpen = 4
		}
		if dir := filepath.Dir(dsn); dir != "" && dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("create database directory %s: %w", dir, err)
			}
		}
		// WAL lets the API read while a poll writes; immediate transactions
		// and a busy timeout make concurrent writers queue instead of failing.
		db, err = sqlx.Open("sqlite", "file:"+dsn+"?_pragma=busy_timeout(15000)&_pragma=journal_mode(WAL)"+
			"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate&_time_format=sqlite")
	}
	if err != nil {
		return nil, fmt.Errorf("open %s database %s: %w", dialect, RedactURL(databaseURL), err)
	}
	maxIdle := opts.MaxIdleConns
	if maxIdle <= 0 || maxIdle > maxOpen {
		maxIdle = maxOpen
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxIdle)
	if err := connect(ctx, db, dialect, databaseURL, ""); err != nil {
		return nil, err
	}
	return &Store{db: db, dialect: dialect}, nil
}

// connect checks that db answers, closing it when it does not; how (for
// example " read-only") goes into the error, the URL without its password.
func connect(ctx context.Context, db *sqlx.DB, dialect, databaseURL, how string) error {
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return fmt.Errorf("connect to %s database %s%s: %w", dialect, RedactURL(databaseURL), how, err)
	}
	return nil
}

// withBinaryParameters turns on lib/pq's binary_parameters unless the URL
// sets it: statements with parameters then take one round trip instead of
// two (no separate prepare), which halves the cost of a 304 poll's
// bookkeeping.
func withBinaryParameters(dsn string) string {
	if strings.Contains(dsn, "binary_parameters=") {
		return dsn
	}
	if strings.Contains(dsn, "?") {
		return dsn + "&binary_parameters=yes"
	}
	return dsn + "?binary_parameters=yes"
}

// PoolStats reports the pool's limits and use, for the daemon's start-up
// log and tests.
func (s *Store) PoolStats() sql.DBStats { return s.db.Stats() }

// Dialect is "postgres" or "sqlite".
func (s *Store) Dialect() string { return s.dialect }

// DB exposes the connection pool to tests and benchmarks.
func (s *Store) DB() *sqlx.DB { return s.db }

// Close releases the connection pool.
func (s *Store) Close() error { return s.db.Close() }

// Migrate applies pending migrations and returns the versions applied.
func (s *Store) Migrate(ctx context.Context) ([]int, error) {
	return migrations.Apply(ctx, s.db, s.dialect)
}

// Ready reports whether the database answers and its schema is current.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	cur, err := migrations.Current(ctx, s.db)
	if err != nil {
		return err
	}
	latest, err := migrations.Latest(s.dialect)
	if err != nil {
		return err
	}
	if cur < latest {
		return fmt.Errorf("database schema at version %d, binary needs %d: run `feedpoller migrate`", cur, latest)
	}
	return nil
}

// q rebinds a query written with ? placeholders to the dialect.
func (s *Store) q(query string) string { return s.db.Rebind(query) }

// now is the one clock of the store, in UTC.
func now() time.Time { return time.Now().UTC() }

// asTime wraps a timestamp column or parameter for comparing and ordering.
// SQLite keeps timestamps as text, and writers use several forms: the
// column defaults write 2026-01-02T03:04:05.000Z, datetime('now') writes
// 2026-01-02 03:04:05, this driver 2026-01-02 03:04:05.123+00:00. As text
// they do not sort in time order (a row inserted by another client would
// never be due), so SQLite compares julianday() of both sides; the due
// index is built on the same expression. PostgreSQL has real timestamps.
func (s *Store) asTime(expr string) string {
	if s.dialect == SQLite {
		return "julianday(" + expr + ")"
	}
	return expr
}

// isUniqueViolation reports a unique-constraint failure in either dialect.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "duplicate key value") || strings.Contains(msg, "UNIQUE constraint failed")
}
