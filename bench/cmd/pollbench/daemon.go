package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// buildDaemon compiles cmd/feedpoller into dir, from the module the
// benchmark runs in.
func buildDaemon(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "feedpoller")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/feedpoller/feedpoller/cmd/feedpoller")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build feedpoller: %w: %s", err, out)
	}
	return bin, nil
}

// daemonConfig is how the daemon under test is configured, through its
// environment variables only (no config file).
type daemonConfig struct {
	bin         string
	databaseURL string
	listen      string
	workers     int // 0: the daemon's default
	batchSize   int // 0: the daemon's default
	perDomain   int // requests in flight per domain: the farm is one host
	logFile     string
	// dir is the daemon's working directory, the run's: no config.yaml
	// there, so every binary runs on its built-in defaults and the
	// environment below, whatever its revision.
	dir string
	// maxOpen and maxIdle size the daemon's database pool; 0: its default.
	maxOpen, maxIdle int
}

func (c daemonConfig) env() []string {
	env := append(os.Environ(),
		"FEEDPOLLER_DATABASE_URL="+c.databaseURL,
		"FEEDPOLLER_LISTEN="+c.listen,
		"FEEDPOLLER_ADMIN_TOKEN=bench-admin-token-0123456789",
		"FEEDPOLLER_LOG_LEVEL=warn",
		"FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true",
		// Every farm feed is on 127.0.0.1, one "domain": politeness would
		// measure the gap, not the daemon.
		"FEEDPOLLER_FETCH_PER_DOMAIN_GAP=0",
		"FEEDPOLLER_FETCH_PER_DOMAIN_CONCURRENCY="+strconv.Itoa(c.perDomain),
		"FEEDPOLLER_POLLER_SCHEDULE=@every 1s",
	)
	if c.workers > 0 {
		env = append(env, "FEEDPOLLER_POLLER_WORKERS="+strconv.Itoa(c.workers))
	}
	if c.batchSize > 0 {
		env = append(env, "FEEDPOLLER_POLLER_BATCH_SIZE="+strconv.Itoa(c.batchSize))
	}
	if c.maxOpen > 0 {
		env = append(env, "FEEDPOLLER_DATABASE_MAX_OPEN_CONNS="+strconv.Itoa(c.maxOpen))
	}
	if c.maxIdle > 0 {
		env = append(env, "FEEDPOLLER_DATABASE_MAX_IDLE_CONNS="+strconv.Itoa(c.maxIdle))
	}
	return env
}

// run executes one CLI command of the daemon binary and returns its output.
func (c daemonConfig) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env, cmd.Dir = c.env(), c.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("feedpoller %v: %w: %s", args, err, out.String())
	}
	return out.String(), nil
}

// daemon is a running `feedpoller serve`.
type daemon struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

func startDaemon(ctx context.Context, c daemonConfig) (*daemon, error) {
	logf, err := os.Create(c.logFile)
	if err != nil {
		return nil, fmt.Errorf("create daemon log: %w", err)
	}
	cmd := exec.Command(c.bin, "serve")
	cmd.Env, cmd.Dir = c.env(), c.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		_ = logf.Close() // the start's error is the one to report
		return nil, fmt.Errorf("start feedpoller serve: %w", err)
	}
	d := &daemon{cmd: cmd, base: "http://" + c.listen, done: make(chan error, 1)}
	go func() { d.done <- waitAndClose(cmd, logf) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return d, nil
			}
		}
		select {
		case err := <-d.done:
			log, _ := os.ReadFile(c.logFile)
			return nil, fmt.Errorf("feedpoller serve exited at start (%w): %s", err, log)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = d.stop() // not being ready is the failure to report
			return nil, fmt.Errorf("feedpoller serve not ready after 30s (see %s)", c.logFile)
		}
	}
}

func (d *daemon) pid() int { return d.cmd.Process.Pid }

// stop sends SIGTERM and waits for the graceful shutdown, killing the
// daemon if it takes too long.
func (d *daemon) stop() error {
	_ = d.cmd.Process.Signal(syscall.SIGCONT) // a paused daemon handles SIGTERM only once it runs
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		return err
	case <-time.After(45 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.done //nolint:errcheck // killed: its exit status says nothing more
		return fmt.Errorf("feedpoller did not stop within 45s of SIGTERM; killed")
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	return addr, nil
}

// waitAndClose waits for the daemon to exit, then closes its log: the
// exit's error first, else the log's (a full disk cut it short).
func waitAndClose(cmd *exec.Cmd, logf *os.File) error {
	err := cmd.Wait()
	if cerr := logf.Close(); err == nil && cerr != nil {
		return fmt.Errorf("daemon log: %w", cerr)
	}
	return err
}
