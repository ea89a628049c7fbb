// Package pgcluster starts a throwaway PostgreSQL cluster for benchmarks:
// initdb and postgres from the local server binaries, on a free loopback
// port, with pg_stat_statements loaded so a benchmark can count the
// statements a poll costs. Unlike internal/testdb it needs no testing.TB,
// so the standalone pollbench program can use it, and it exposes the
// postmaster's pid so the server's CPU can be read from /proc.
package pgcluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	_ "github.com/lib/pq" // PostgreSQL driver

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	// URL reaches the "postgres" database as the superuser "postgres".
	URL  string
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs initdb and postgres in a fresh temporary directory. The
// server trades durability for speed (fsync off), as a benchmark of the
// daemon, not of the disk, wants. Always call Stop.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := testdb.BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "feedpoller-bench-pg-")
	if err != nil {
		return nil, fmt.Errorf("make cluster directory: %w", err)
	}
	// PostgreSQL refuses to run as root: run it as the postgres user,
	// directly (not through runuser, which would stand between the server
	// and the signals that stop it).
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs a 'postgres' user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("hand cluster directory to postgres: %w", err)
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	command := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return cmd
	}
	data := filepath.Join(dir, "data")
	if out, err := command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Not CommandContext: the server must outlive a cancelled start-up
	// context until Stop shuts it down cleanly.
	full := append([]string{}, filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=256MB",
		"-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=top")
	cmd := exec.Command(full[0], full[1:]...)
	// Pdeathsig: a benchmark killed outright does not leave its server behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("create server log: %w", err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	c := &Cluster{Port: port, dir: dir, cmd: cmd, done: make(chan struct{}),
		URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)}
	go func() { cmd.Wait(); logf.Close(); close(c.done) }()
	if err := c.waitReady(ctx); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		c.Stop()
		return nil, fmt.Errorf("postgres did not start: %w: %s", err, log)
	}
	return c, nil
}

func (c *Cluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		db, err := sql.Open("postgres", c.URL)
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-c.done:
			return errors.New("server exited")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// CreateDatabase makes a new database and returns its URL. With
// pgStatStatements it also creates the extension there, so the
// pg_stat_statements view can be read.
func (c *Cluster) CreateDatabase(ctx context.Context, name string, pgStatStatements bool) (string, error) {
	admin, err := sql.Open("postgres", c.URL)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	u := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, name)
	if pgStatStatements {
		db, err := sql.Open("postgres", u)
		if err != nil {
			return "", err
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
			return "", fmt.Errorf("create pg_stat_statements in %s: %w", name, err)
		}
	}
	return u, nil
}

// PID is the postmaster's process id; the backends serving connections are
// its children.
func (c *Cluster) PID() int { return c.cmd.Process.Pid }

// Stop shuts the server down (fast shutdown) and removes its directory.
func (c *Cluster) Stop() {
	if c == nil || c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.done:
	default:
		_ = c.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-c.done:
		case <-time.After(15 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
	os.RemoveAll(c.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
