package daemontest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// fatalRecorder is a testing.TB whose Fatal ends only the goroutine that
// called it and keeps the message, so a test can see Start refuse.
type fatalRecorder struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.msg = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *fatalRecorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

func (r *fatalRecorder) message() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.msg
}

// startRecorded runs Start in a goroutine of its own and reports whether
// it returned, and what it refused with when it did not.
func startRecorded(t *testing.T, binary string, env []string) (started bool, fatal string) {
	r := &fatalRecorder{TB: t}
	done := make(chan bool)
	go func() {
		ok := false
		defer func() { done <- ok }()
		Start(r, binary, t.TempDir(), env)
		ok = true
	}()
	return <-done, r.message()
}

// sleeper is a stand-in binary that never listens anywhere.
func sleeper(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "sleeper")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStartRefusesAnotherProcessAnswering: a port taken by another program
// that answers /healthz (here, this test's own server) is not mistaken
// for the daemon: Start fails naming the address, instead of handing the
// test a daemon that is not feedpoller.
func TestStartRefusesAnotherProcessAnswering(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp: the listener's owner cannot be read on this system")
	}
	impostor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	}))
	defer impostor.Close()
	addr := strings.TrimPrefix(impostor.URL, "http://")
	issued.Store(addr, true) // as if FreeAddr had picked it just before the impostor took it
	started, fatal := startRecorded(t, sleeper(t), []string{"FEEDPOLLER_LISTEN=" + addr})
	if started || !strings.Contains(fatal, "another process") || !strings.Contains(fatal, addr) {
		t.Fatalf("Start returned %v with %q; want a refusal naming %s as answered by another process", started, fatal, addr)
	}
}

// TestStartRefusesFixedOrPublicAddresses: the addresses a configuration
// meant for a container or a server names are refused before anything
// starts.
func TestStartRefusesFixedOrPublicAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", "127.0.0.1:8080", ":8080", "[::]:9090"} {
		started, fatal := startRecorded(t, sleeper(t), []string{"FEEDPOLLER_LISTEN=" + addr})
		if started || !strings.Contains(fatal, "FreeAddr") {
			t.Errorf("FEEDPOLLER_LISTEN=%s: Start returned %v with %q; want a refusal", addr, started, fatal)
		}
	}
}
