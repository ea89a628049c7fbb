// Package rtproxy is a loopback TCP proxy that counts database round
// trips: every time the client sends after the server has answered (or
// sends first) is one round trip. It sees exactly what crosses the wire,
// so it counts what a driver really does (lib/pq, for instance, may need
// two round trips for one parameterised statement), not what the code
// intends.
package rtproxy

import (
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Proxy forwards connections to one upstream address and counts round
// trips over all of them.
type Proxy struct {
	ln       net.Listener
	upstream string
	trips    atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]bool
}

// Start listens on a free loopback port and forwards to upstream
// ("host:port").
func Start(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for proxy: %w", err)
	}
	p := &Proxy{ln: ln, upstream: upstream, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's "host:port".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// RoundTrips is how many client→server turns were seen so far.
func (p *Proxy) RoundTrips() int64 { return p.trips.Load() }

// Close stops accepting, closes every connection and waits for the
// forwarders to end.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.upstream)
		if err != nil {
			client.Close()
			continue
		}
		p.track(client, true)
		p.track(server, true)
		p.wg.Add(1)
		go p.pipe(client, server)
	}
}

// pipe forwards both ways. turn records who spoke last: a client write
// after a server write (or the first client write) starts a round trip.
func (p *Proxy) pipe(client, server net.Conn) {
	defer p.wg.Done()
	var turn atomic.Int32 // 0: nobody yet, 1: client spoke last, 2: server spoke last
	var both sync.WaitGroup
	both.Add(2)
	go func() {
		defer both.Done()
		copyCounting(server, client, func() {
			if turn.Swap(1) != 1 {
				p.trips.Add(1)
			}
		})
		server.Close()
	}()
	go func() {
		defer both.Done()
		copyCounting(client, server, func() { turn.Store(2) })
		client.Close()
	}()
	both.Wait()
	p.track(client, false)
	p.track(server, false)
}

func copyCounting(dst io.Writer, src io.Reader, onData func()) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			onData()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or a closed connection: either way this direction is done
		}
	}
}
