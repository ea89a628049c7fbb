package chaos

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

// aliasNet is the loopback block the daemon of the hostile-server test is
// allowed to reach. It leaves out 127.0.0.1, where the hostile server
// itself listens and where "localhost" leads, so a redirect to localhost is
// refused while the aliases in this block are reachable.
const aliasNet = "127.0.1.0/24"

var aliasSeq struct {
	mu   sync.Mutex
	next int
}

// newAlias puts target (host:port) behind the next free address of
// aliasNet: each alias is a site of its own for the daemon's per-domain
// politeness, breaker and rate-limit bookkeeping.
func newAlias(t *testing.T, target string) *Alias {
	t.Helper()
	aliasSeq.mu.Lock()
	aliasSeq.next++
	n := aliasSeq.next
	aliasSeq.mu.Unlock()
	if n > 254 {
		t.Fatal("out of alias addresses in " + aliasNet)
	}
	a, err := NewAlias(fmt.Sprintf("127.0.1.%d", n), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestAliasForwardsAnswersWhole checks the forwarder itself: a clean
// answer arrives whole (and a reset as a reset, below).
func TestAliasForwardsAnswersWhole(t *testing.T) {
	f := NewFarm()
	defer f.Close()
	f.SetItems(2)
	a := newAlias(t, f.Addr())
	body, err := get(a.URL() + FeedPath(1))
	if err != nil || len(body) < 100 {
		t.Fatalf("feed through the alias: %v (%d bytes)", err, len(body))
	}
	if f.Hits(FeedPath(1)) != 1 {
		t.Fatalf("farm hits %d, want 1", f.Hits(FeedPath(1)))
	}
}

func TestAliasPassesResetsOnAsResets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 64)
			_, _ = c.Read(buf)
			abort(c)
		}
	}()
	a := newAlias(t, ln.Addr().String())
	c, err := net.DialTimeout("tcp", a.ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(c)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read through the alias after the target reset: %v, want a connection reset", err)
	}
}
