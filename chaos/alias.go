package chaos

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// Alias listens on a loopback address of its own and forwards every
// connection, byte for byte, to a target server. A reset from the target is
// passed on as a reset, and a client that leaves closes the target
// connection, so hostile behaviour (hangs, resets mid-body) looks the same
// through the alias as it does directly.
type Alias struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewAlias listens on ip (such as 127.0.1.5) at a free port and forwards to
// target (host:port).
func NewAlias(ip, target string) (*Alias, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("alias %s for %s: %w", ip, target, err)
	}
	a := &Alias{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	a.wg.Add(1)
	go a.accept()
	return a, nil
}

// URL is the alias's base URL, http://ip:port.
func (a *Alias) URL() string { return "http://" + a.ln.Addr().String() }

// Close stops listening and drops every forwarded connection.
func (a *Alias) Close() error {
	a.mu.Lock()
	a.closed = true
	for c := range a.conns {
		_ = c.Close()
	}
	a.mu.Unlock()
	err := a.ln.Close()
	a.wg.Wait()
	return err
}

func (a *Alias) track(c net.Conn) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		_ = c.Close()
		return false
	}
	a.conns[c] = struct{}{}
	return true
}

func (a *Alias) untrack(c net.Conn) {
	a.mu.Lock()
	delete(a.conns, c)
	a.mu.Unlock()
}

func (a *Alias) accept() {
	defer a.wg.Done()
	for {
		c, err := a.ln.Accept()
		if err != nil {
			return
		}
		if !a.track(c) {
			continue
		}
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			defer a.untrack(c)
			a.forward(c)
		}()
	}
}

// forward pipes one client connection to a new target connection until
// either side is done.
func (a *Alias) forward(client net.Conn) {
	backend, err := net.DialTimeout("tcp", a.target, 5*time.Second)
	if err != nil {
		abort(client)
		return
	}
	if !a.track(backend) {
		abort(client)
		return
	}
	defer a.untrack(backend)

	upDone := make(chan struct{})
	go func() {
		defer close(upDone)
		_, _ = io.Copy(backend, client)
		// The client left (or sent a reset): the target's handler must see
		// its request end.
		_ = backend.Close()
	}()
	_, err = io.Copy(client, backend)
	if errors.Is(err, syscall.ECONNRESET) {
		abort(client)
	} else {
		_ = client.Close()
	}
	_ = backend.Close()
	<-upDone
}

// abort closes c so that the peer sees a reset rather than a clean end.
func abort(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
