package chaos

import (
	"os"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/daemontest"
)

// daemon is a running `feedpoller serve`.
type daemon = daemontest.Daemon

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

// startDaemon runs `feedpoller serve` in a temporary directory and waits
// until it answers /healthz.
func startDaemon(t *testing.T, env []string) *daemon {
	t.Helper()
	return daemontest.Start(t, binary, "", env)
}

// checkNoPanic fails the test when the daemon's output shows a panic, even
// one that something recovered from.
func checkNoPanic(t *testing.T, d *daemon) {
	t.Helper()
	if n := d.LogLines("panic"); n != 0 {
		t.Errorf("the daemon's output mentions a panic %d times", n)
	}
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
