package daemontest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// checkOwnListener fails the test unless the socket listening on addr
// belongs to the daemon's process: FreeAddr's port is free when chosen,
// not reserved, so another program may take it first, and a test talking
// to that program would fail in ways that say nothing about feedpoller.
// Where /proc is missing (not Linux) there is nothing to check with.
func (d *Daemon) checkOwnListener(t testing.TB, addr string) {
	t.Helper()
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("daemontest: listen address %q: %v", addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		t.Fatalf("daemontest: listen address %q: %v", addr, err)
	}
	inodes, err := listeningInodes(port)
	if err != nil {
		t.Logf("daemontest: cannot tell who listens on %s (%v); not checked", addr, err)
		return
	}
	owned, err := socketInodes(d.PID())
	if err != nil {
		t.Logf("daemontest: cannot read the daemon's sockets (%v); not checked", err)
		return
	}
	for _, ino := range inodes {
		if owned[ino] {
			return
		}
	}
	d.Kill()
	t.Fatalf("daemontest: %s is answered by another process, not the daemon started (pid %d); its output:\n%s",
		addr, d.PID(), d.Output())
}

// listeningInodes are the inodes of the TCP sockets listening on port,
// from /proc/net/tcp and tcp6.
func listeningInodes(port int) ([]string, error) {
	var out []string
	found := false
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		found = true
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); ok && err == nil && int(p) == port {
				out = append(out, fields[9])
			}
		}
		_ = f.Close() // read only
	}
	if !found {
		return nil, fmt.Errorf("no /proc/net/tcp")
	}
	return out, nil
}

// socketInodes are the inodes of the sockets the process pid holds open.
func socketInodes(pid int) (map[string]bool, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok {
			out[strings.TrimSuffix(ino, "]")] = true
		}
	}
	return out, nil
}
