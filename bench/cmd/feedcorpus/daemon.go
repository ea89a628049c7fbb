package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

const adminToken = "feedcorpus-admin-token-0123456789"

// buildDaemon compiles cmd/feedpoller of the module this runs in.
func buildDaemon(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "feedpoller")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/feedpoller/feedpoller/cmd/feedpoller")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build feedpoller: %w: %s", err, out)
	}
	return bin, nil
}

// daemon is a running `feedpoller serve` on a fresh SQLite database,
// logging JSON at debug level so every skipped item's reason is on record.
type daemon struct {
	cmd    *exec.Cmd
	base   string
	dbPath string
	logPth string
	done   chan error
	client *http.Client
}

func startDaemon(ctx context.Context, bin, work string) (*daemon, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, err
	}
	d := &daemon{
		base:   "http://" + addr,
		dbPath: filepath.Join(work, "corpus.db"),
		logPth: filepath.Join(work, "daemon.log"),
		done:   make(chan error, 1),
		client: &http.Client{Timeout: 2 * time.Minute},
	}
	logf, err := os.Create(d.logPth)
	if err != nil {
		return nil, err
	}
	d.cmd = exec.Command(bin, "serve")
	d.cmd.Dir = work
	d.cmd.Env = append(os.Environ(),
		"FEEDPOLLER_DATABASE_URL=sqlite:"+d.dbPath,
		"FEEDPOLLER_LISTEN="+addr,
		"FEEDPOLLER_ADMIN_TOKEN="+adminToken,
		"FEEDPOLLER_LOG_LEVEL=debug",
		"FEEDPOLLER_LOG_FORMAT=json",
		"FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true",
		// One loopback host serves every file: no politeness gap, and no
		// article pages (the corpora's links point at hosts that do not
		// answer here): the feed alone is measured.
		"FEEDPOLLER_FETCH_PER_DOMAIN_GAP=0",
		"FEEDPOLLER_FETCH_PER_DOMAIN_CONCURRENCY=16",
		"FEEDPOLLER_FETCH_ATTEMPTS=1",
		"FEEDPOLLER_POLLER_FETCH_ARTICLES=false",
		"FEEDPOLLER_POLLER_SCHEDULE=@every 1000h",
	)
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := d.cmd.Start(); err != nil {
		_ = logf.Close() // the start's error is the one to report
		return nil, fmt.Errorf("start feedpoller serve: %w", err)
	}
	go func() {
		err := d.cmd.Wait()
		if cerr := logf.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("daemon log: %w", cerr)
		}
		d.done <- err
	}()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/readyz", nil)
		if resp, err := d.client.Do(req); err == nil {
			_ = resp.Body.Close() // the status is all that is read
			if resp.StatusCode == http.StatusOK {
				return d, nil
			}
		}
		select {
		case err := <-d.done:
			log, _ := os.ReadFile(d.logPth)
			return nil, fmt.Errorf("feedpoller serve exited at start (%w): %s", err, log)
		case <-ctx.Done():
			d.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	d.stop()
	return nil, fmt.Errorf("feedpoller serve not ready after 60s (see %s)", d.logPth)
}

// stop ends the daemon gracefully, killing it if it lingers. The
// daemon's exit status is not looked at: its log says what went wrong.
func (d *daemon) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done: //nolint:errcheck // see the log
	case <-time.After(60 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.done //nolint:errcheck // killed
	}
}

// call sends one API request and decodes a JSON answer into out. The
// status is returned with the answer's "error" text when it is not 2xx.
func (d *daemon) call(ctx context.Context, method, path string, in, out any) (int, string, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, "", err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+"/api/intelligence"+path, body)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, "", err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Error == "" {
			e.Error = string(raw)
		}
		return resp.StatusCode, e.Error, nil
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, "", fmt.Errorf("%s %s: decode %q: %w", method, path, raw, err)
		}
	}
	return resp.StatusCode, "", nil
}
