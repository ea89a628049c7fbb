package testdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Cluster is a PostgreSQL server of the test's own, which the test may stop
// and start again on the same port: the chaos suite pulls the database from
// under a running daemon with it. Unlike URL's shared cluster it never reads
// FEEDPOLLER_TEST_POSTGRES_URL, since stopping a server someone else runs is
// not the test's to do.
type Cluster struct {
	bin  string
	dir  string // owns data/, the socket and postgres.log
	data string
	port int
	cred *syscall.Credential // set when running as root: PostgreSQL refuses root
	// settings are extra "name=value" server settings (-c).
	settings []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// NewCluster starts a Cluster for one test and stops and removes it when
// the test ends.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	c, err := StartCluster()
	if err != nil {
		Unavailable(t, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// StartCluster initialises a cluster under a temporary directory and starts
// it on a free loopback port, with any extra "name=value" server settings
// (benchmarks load pg_stat_statements this way). Close stops it and
// removes the directory.
func StartCluster(settings ...string) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "feedpoller-pgcluster-")
	if err != nil {
		return nil, fmt.Errorf("cluster directory: %w", err)
	}
	c := &Cluster{bin: bin, dir: dir, data: filepath.Join(dir, "data"), settings: settings}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			removeDir(dir)
			return nil, fmt.Errorf("running as root needs a 'postgres' user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			removeDir(dir)
			return nil, fmt.Errorf("hand the cluster directory to postgres: %w", err)
		}
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	initdb := c.command(filepath.Join(bin, "initdb"), "-D", c.data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
	if out, err := initdb.CombinedOutput(); err != nil {
		removeDir(dir)
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	if c.port, err = freePort(); err != nil {
		removeDir(dir)
		return nil, fmt.Errorf("pick a port: %w", err)
	}
	if err := c.Start(); err != nil {
		removeDir(dir)
		return nil, err
	}
	return c, nil
}

// removeDir removes a cluster directory that failed to start; what is
// left of it (a file the server's user made unreadable) is only litter in
// the temporary directory, and the start's error is the one to report.
func removeDir(dir string) { _ = os.RemoveAll(dir) }

// command runs a server binary as the cluster's owner. Pdeathsig makes the
// kernel stop the server should the test binary die without cleaning up
// (a timeout panic): SIGQUIT is PostgreSQL's immediate shutdown.
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

// PID is the running postmaster's process id (0 when stopped); the
// backends serving connections are its children.
func (c *Cluster) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// Port is the TCP port the server listens on, the same across restarts.
func (c *Cluster) Port() int { return c.port }

// URL is the server's URL for database db ("postgres" when empty).
func (c *Cluster) URL(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// CreateDatabase creates an empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	db, err := sql.Open("postgres", c.URL(""))
	if err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// Dump writes database db to file in pg_dump's custom format, for a
// benchmark's -keep: the cluster's directory goes with the cluster.
func (c *Cluster) Dump(ctx context.Context, db, file string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "pg_dump"), "-Fc", "-f", file, "-d", c.URL(db))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("dump database %s: %w: %s", db, err, out)
	}
	return nil
}

// Running reports whether the server process is up.
func (c *Cluster) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return false
	}
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// Start starts the stopped server on its port and waits until it accepts
// connections.
func (c *Cluster) Start() error {
	c.mu.Lock()
	if c.cmd != nil {
		c.mu.Unlock()
		return errors.New("start postgres: already running")
	}
	args := []string{"-D", c.data, "-p", strconv.Itoa(c.port), "-h", "127.0.0.1",
		"-k", c.dir, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300"}
	for _, kv := range c.settings {
		args = append(args, "-c", kv)
	}
	cmd := c.command(filepath.Join(c.bin, "postgres"), args...)
	logf, err := os.OpenFile(filepath.Join(c.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.mu.Unlock()
		return fmt.Errorf("start postgres: log file: %w", err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		_ = logf.Close() // the start's error is the one to report
		c.mu.Unlock()
		return fmt.Errorf("start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = logf.Close(); close(done) }() // the server's log is only read on failure
	c.cmd, c.done = cmd, done
	c.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		db, err := sql.Open("postgres", c.URL(""))
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("postgres exited at start: %s", c.Log())
		case <-ctx.Done():
			_ = c.Stop()
			return fmt.Errorf("postgres did not accept connections: %w: %s", err, c.Log())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop shuts the server down the way an outage looks to clients: a fast
// shutdown that ends every session at once. It waits until the process has
// exited, so the port is free for Start.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.cmd, c.done = nil, nil
	c.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGINT) // fast shutdown
	select {
	case <-done:
		return nil
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown
	}
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return errors.New("stop postgres: it ignored fast and immediate shutdown and was killed")
	}
}

// Close stops the server and removes its files.
func (c *Cluster) Close() error {
	err := c.Stop()
	if rerr := os.RemoveAll(c.dir); rerr != nil && err == nil {
		err = fmt.Errorf("remove cluster directory: %w", rerr)
	}
	return err
}

// Log returns the server's log so far, for failure messages.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
	return string(b)
}
