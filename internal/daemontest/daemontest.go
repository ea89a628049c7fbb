// Package daemontest builds the real feedpoller binary and runs it as
// `feedpoller serve` for end-to-end and chaos tests.
package daemontest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// Build compiles the command in pkgDir (e.g. "../cmd/feedpoller") into a
// temporary directory; cleanup removes it.
func Build(pkgDir string) (binary string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "feedpoller-bin-")
	if err != nil {
		return "", nil, err
	}
	binary = filepath.Join(dir, "feedpoller")
	// The feedpoller_testclock tag lets a test start the binary's
	// scheduling clock at a chosen time of day (FEEDPOLLER_TEST_CLOCK);
	// a release build has no such setting.
	if out, err := exec.Command("go", "build", "-tags", "feedpoller_testclock", "-o", binary, pkgDir).CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir) // the build's error is the one to report
		return "", nil, fmt.Errorf("build feedpoller: %w\n%s", err, out)
	}
	return binary, func() { _ = os.RemoveAll(dir) }, nil // temporary litter at worst
}

// Main is the TestMain of a package of end-to-end tests: it builds the
// binary of pkgDir into *binary, runs the tests (stopping the PostgreSQL
// cluster they started, as testdb.Main does), removes the build and exits
// with the tests' code.
func Main(m *testing.M, pkgDir string, binary *string) {
	bin, cleanup, err := Build(pkgDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*binary = bin
	code := testdb.Run(m)
	cleanup()
	os.Exit(code)
}

// Daemon is a running `feedpoller serve`.
type Daemon struct {
	// Base is the API's base URL, http://127.0.0.1:PORT.
	Base string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done

	mu  sync.Mutex
	out bytes.Buffer // stdout and stderr together
}

// issued are the addresses FreeAddr handed out: the only ones a caller
// may give a daemon to listen on.
var issued sync.Map

// FreeAddr is a loopback address nothing listens on right now. A test
// that needs to know its daemon's address before it starts passes it to
// Start as FEEDPOLLER_LISTEN.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	issued.Store(addr, true)
	return addr
}

// Start runs `binary serve` in dir (a new temporary directory when empty)
// with exactly env plus FEEDPOLLER_LISTEN, and waits until it answers
// /healthz (by then its database is migrated). The listen address is a
// free loopback port: one from FreeAddr when env sets it (for a daemon
// that must know its own address), else a new one. A test daemon never
// listens on a fixed port or on every interface, where it could meet, or
// be, another program; and Start checks that the process answering is
// the one it started. The process is killed when the test ends, and by
// the kernel should the test binary die first.
func Start(t testing.TB, binary, dir string, env []string) *Daemon {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	addr := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "FEEDPOLLER_LISTEN="); ok {
			addr = v
		}
	}
	if addr == "" {
		addr = FreeAddr(t)
	} else if _, ok := issued.Load(addr); !ok {
		t.Fatalf("daemontest: FEEDPOLLER_LISTEN=%s: a test daemon listens only on a loopback port from FreeAddr, never a fixed port or all interfaces", addr)
	}
	d := &Daemon{Base: "http://" + addr, done: make(chan struct{})}
	d.cmd = exec.Command(binary, "serve")
	d.cmd.Dir = dir
	d.cmd.Env = append(append([]string{}, env...), "FEEDPOLLER_LISTEN="+addr)
	w := &lockedWriter{mu: &d.mu, w: &d.out}
	d.cmd.Stdout, d.cmd.Stderr = w, w
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		d.Kill()
		if t.Failed() {
			t.Logf("daemon %d output (last 60 lines):\n%s", d.PID(), tail(d.Output(), 60))
		}
	})
	// A hang guard, not a measure: start-up on a loaded machine may be slow.
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(d.Base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				d.checkOwnListener(t, addr)
				return d
			}
		}
		select {
		case <-d.done:
			t.Fatalf("daemon exited at start: %v\n%s", d.err, d.Output())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("daemon did not answer /healthz\n%s", d.Output())
	return nil
}

// PID is the daemon's process id.
func (d *Daemon) PID() int { return d.cmd.Process.Pid }

// Alive reports whether the process is still running.
func (d *Daemon) Alive() bool {
	select {
	case <-d.done:
		return false
	default:
		return true
	}
}

// Err is the process's exit status once it has exited (nil before).
func (d *Daemon) Err() error {
	if d.Alive() {
		return nil
	}
	return d.err
}

// Healthy reports whether the process runs and answers /healthz.
func (d *Daemon) Healthy() bool {
	if !d.Alive() {
		return false
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(d.Base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop sends sig and waits up to timeout for the process to exit,
// returning its exit status; it fails the test if the process stays.
func (d *Daemon) Stop(t testing.TB, sig os.Signal, timeout time.Duration) error {
	t.Helper()
	_ = d.cmd.Process.Signal(sig)
	select {
	case <-d.done:
		return d.err
	case <-time.After(timeout):
		t.Fatalf("daemon did not exit within %v of %v", timeout, sig)
		return nil
	}
}

// Kill sends SIGKILL and waits for the process to be gone.
func (d *Daemon) Kill() {
	if d.Alive() {
		_ = d.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-d.done
}

// Output is everything the daemon printed so far.
func (d *Daemon) Output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.String()
}

// LogLines counts the output lines that contain s.
func (d *Daemon) LogLines(s string) int {
	n := 0
	for _, line := range strings.Split(d.Output(), "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
