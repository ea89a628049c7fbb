package chaos

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// daemon is a running `feedpoller serve`.
type daemon struct {
	cmd  *exec.Cmd
	base string
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done

	mu  sync.Mutex
	out bytes.Buffer // stdout and stderr together
}

// chaosEnv is the configuration every chaos daemon shares: a fast tick, a
// short fetch timeout, no politeness gap, and a small body cap.
func chaosEnv(dbURL string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"FEEDPOLLER_DATABASE_URL=" + dbURL,
		"FEEDPOLLER_ADMIN_TOKEN=chaos-admin-token",
		"FEEDPOLLER_POLLER_SCHEDULE=@every 1s",
		"FEEDPOLLER_FETCH_TIMEOUT=3s",
		"FEEDPOLLER_FETCH_MAX_BODY_BYTES=2097152",
		"FEEDPOLLER_FETCH_PER_DOMAIN_GAP=0",
		"FEEDPOLLER_FETCH_PER_DOMAIN_CONCURRENCY=64",
	}
	return append(env, extra...)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startDaemon runs `feedpoller serve` in a temporary directory and waits
// until it answers /healthz (by then its database is migrated). The process
// is killed when the test ends, and by the kernel should the test binary
// die first.
func startDaemon(t *testing.T, env []string) *daemon {
	t.Helper()
	addr := freeAddr(t)
	d := &daemon{base: "http://" + addr, done: make(chan struct{})}
	d.cmd = exec.Command(binary, "serve")
	d.cmd.Dir = t.TempDir()
	d.cmd.Env = append(append([]string{}, env...), "FEEDPOLLER_LISTEN="+addr)
	w := &lockedWriter{mu: &d.mu, w: &d.out}
	d.cmd.Stdout, d.cmd.Stderr = w, w
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		d.kill()
		if t.Failed() {
			t.Logf("daemon %d output (last 60 lines):\n%s", d.cmd.Process.Pid, tail(d.output(), 60))
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(d.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return d
			}
		}
		select {
		case <-d.done:
			t.Fatalf("daemon exited at start: %v\n%s", d.err, d.output())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("daemon did not answer /healthz\n%s", d.output())
	return nil
}

// pid is the daemon's process id.
func (d *daemon) pid() int { return d.cmd.Process.Pid }

// alive reports whether the process is still running.
func (d *daemon) alive() bool {
	select {
	case <-d.done:
		return false
	default:
		return true
	}
}

// healthy reports whether the process runs and answers /healthz.
func (d *daemon) healthy() bool {
	if !d.alive() {
		return false
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(d.base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// kill sends SIGKILL and waits for the process to be gone.
func (d *daemon) kill() {
	if d.alive() {
		_ = d.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-d.done
}

func (d *daemon) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.String()
}

// logLines counts the output lines that contain s.
func (d *daemon) logLines(s string) int {
	n := 0
	for _, line := range strings.Split(d.output(), "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// checkNoPanic fails the test when the daemon's output shows a panic, even
// one that something recovered from.
func (d *daemon) checkNoPanic(t *testing.T) {
	t.Helper()
	if n := d.logLines("panic"); n != 0 {
		t.Errorf("the daemon's output mentions a panic %d times", n)
	}
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
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eventually polls cond every 200ms until it holds or timeout passes, and
// says whether it held.
func eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}
