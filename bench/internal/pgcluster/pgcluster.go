// Package pgcluster starts a throwaway PostgreSQL cluster for benchmarks:
// internal/testdb's cluster with pg_stat_statements loaded, so a benchmark
// can count the statements a poll costs. It needs no testing.TB, so the
// standalone pollbench program can use it, and the postmaster's pid lets it
// read the server's CPU from /proc.
package pgcluster

import (
	"context"
	"database/sql"
	"fmt"

	_ "github.com/lib/pq" // PostgreSQL driver

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct{ c *testdb.Cluster }

// Start runs initdb and postgres in a fresh temporary directory (fsync
// off: a benchmark of the daemon, not of the disk). Always call Stop.
func Start(ctx context.Context) (*Cluster, error) {
	c, err := testdb.StartCluster("shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=top")
	if err != nil {
		return nil, fmt.Errorf("start benchmark cluster: %w", err)
	}
	return &Cluster{c: c}, nil
}

// CreateDatabase makes a new database and returns its URL. With
// pgStatStatements it also creates the extension there, so the
// pg_stat_statements view can be read.
func (c *Cluster) CreateDatabase(ctx context.Context, name string, pgStatStatements bool) (string, error) {
	u, err := c.c.CreateDatabase(ctx, name)
	if err != nil || !pgStatStatements {
		return u, err
	}
	db, err := sql.Open("postgres", u)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return "", fmt.Errorf("create pg_stat_statements in %s: %w", name, err)
	}
	return u, nil
}

// Dump writes database db to file (pg_dump's custom format).
func (c *Cluster) Dump(ctx context.Context, db, file string) error { return c.c.Dump(ctx, db, file) }

// PID is the postmaster's process id; the backends serving connections are
// its children.
func (c *Cluster) PID() int { return c.c.PID() }

// Stop shuts the server down (fast shutdown) and removes its directory.
func (c *Cluster) Stop() {
	if c != nil && c.c != nil {
		_ = c.c.Close()
	}
}

// Port is the TCP port the server listens on.
func (c *Cluster) Port() int { return c.c.Port() }
