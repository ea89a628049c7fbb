// Package migrations holds the versioned schema of each SQL dialect,
// embedded in the binary, and applies it.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/store/dberr"
)

// The dialects, as the store names them and sqlx.DB.DriverName reports
// them.
const (
	postgres = "postgres"
	sqlite   = "sqlite"
)

//go:embed postgres/*.sql sqlite/*.sql
var files embed.FS

// Migration is one versioned SQL file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// List returns the migrations of a dialect ("postgres" or "sqlite") in
// version order.
func List(dialect string) ([]Migration, error) {
	entries, err := fs.ReadDir(files, dialect)
	if err != nil {
		return nil, fmt.Errorf("list %s migrations: %w", dialect, err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s/%s: name must start with a version number", dialect, name)
		}
		body, err := files.ReadFile(dialect + "/" + name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Latest is the highest version of a dialect's migrations.
func Latest(dialect string) (int, error) {
	ms, err := List(dialect)
	if err != nil || len(ms) == 0 {
		return 0, err
	}
	return ms[len(ms)-1].Version, nil
}

// Apply runs every migration newer than the database's version, each in its
// own transaction together with its schema_migrations row, so applying twice
// is a no-op and a failed migration leaves the previous version intact. On
// Postgres an advisory lock keeps replicas starting together from racing;
// it is taken only when a migration is pending.
func Apply(ctx context.Context, db *sqlx.DB, dialect string) (applied []int, err error) {
	ms, err := List(dialect)
	if err != nil {
		return nil, err
	}
	conn, err := db.Connx(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Close()
	if dialect == postgres {
		// Every command applies migrations; when there is nothing to
		// apply it takes no lock, so a session holding the lock (an
		// upgrade in progress, or anyone's advisory lock on that key)
		// holds up only an actual migration.
		if current, err := currentVersion(ctx, conn, dialect); err == nil && len(ms) > 0 && current >= ms[len(ms)-1].Version {
			return nil, nil
		}
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7246001)`); err != nil {
			return nil, fmt.Errorf("migrate: take lock: %w", err)
		}
		// Closing the session would release the lock too; unlocking
		// first gives it back before the connection returns to the pool.
		defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(7246001)`) }()
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	current, err := currentVersion(ctx, conn, dialect)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		tx, err := conn.BeginTxx(ctx, nil)
		if err != nil {
			return applied, fmt.Errorf("migrate %s: begin: %w", m.Name, err)
		}
		if err := applyOne(ctx, tx, m); err != nil {
			_ = tx.Rollback() // the migration's error is the one to report
			return applied, err
		}
		if err := tx.Commit(); err != nil {
			return applied, fmt.Errorf("migrate %s: commit: %w", m.Name, err)
		}
		applied = append(applied, m.Version)
	}
	return applied, nil
}

// applyOne runs a migration and records its version, in tx.
func applyOne(ctx context.Context, tx *sqlx.Tx, m Migration) error {
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("migrate %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
		m.Version, m.Name, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("migrate %s: record version: %w", m.Name, err)
	}
	return nil
}

// Current returns the version the database is at (0 when unmigrated).
func Current(ctx context.Context, db *sqlx.DB) (int, error) {
	conn, err := db.Connx(ctx)
	if err != nil {
		return 0, fmt.Errorf("migration version: connect: %w", err)
	}
	defer conn.Close()
	return currentVersion(ctx, conn, db.DriverName())
}

// currentVersion reads the highest applied version; 0 when
// schema_migrations does not exist yet. Whether it exists is told by the
// database's error code on PostgreSQL (undefined_table). SQLite has no
// code for a missing table, so its catalog is asked first; any other
// error, such as a role that may not read the table, is reported.
func currentVersion(ctx context.Context, conn *sqlx.Conn, dialect string) (int, error) {
	if dialect == sqlite {
		var n int
		if err := conn.GetContext(ctx, &n,
			`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`); err != nil {
			return 0, fmt.Errorf("read migration version: %w", err)
		}
		if n == 0 {
			return 0, nil
		}
	}
	var v *int
	if err := conn.GetContext(ctx, &v, `SELECT MAX(version) FROM schema_migrations`); err != nil {
		if dberr.IsUndefinedTable(err) {
			return 0, nil // not migrated yet
		}
		return 0, fmt.Errorf("read migration version: %w", err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}
