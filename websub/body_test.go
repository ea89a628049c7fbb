package websub

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// gateBody is a delivery body that hands out all but its last byte, then
// waits at a gate until the test opens it; it counts what it handed out.
type gateBody struct {
	data   []byte
	pos    int
	atGate chan struct{} // closed when only the last byte is left
	gate   chan struct{} // closed by the test
	once   sync.Once
}

func newGateBody(data []byte, gate chan struct{}) *gateBody {
	return &gateBody{data: data, atGate: make(chan struct{}), gate: gate}
}

func (b *gateBody) Read(p []byte) (int, error) {
	if b.pos == len(b.data) {
		return 0, io.EOF
	}
	end := len(b.data) - 1
	if b.pos == end {
		b.once.Do(func() { close(b.atGate) })
		<-b.gate
		end = len(b.data)
	}
	n := copy(p, b.data[b.pos:end])
	b.pos += n
	return n, nil
}

// read is how many bytes the handler has taken from the body.
func (b *gateBody) read() int { return b.pos }

// Thirty deliveries of 200 KiB with bad signatures arrive at once, their
// last byte held back: however they arrive (with a Content-Length or
// chunked), the bodies held by the deliveries still being read never
// exceed the budget of unverified bytes (1 MiB here: four times the
// 256 KiB limit of one delivery), so at most five are read at once; the
// others are answered 503 at once, and the daemon's memory does not grow
// with the number of deliveries. Those read are acknowledged (202, not
// stored) once their bodies end, and the budget is whole again after.
func TestUnverifiedBodiesBounded(t *testing.T) {
	const (
		deliveries = 30
		size       = 200 << 10
		maxBody    = 256 << 10
		budget     = 4 * maxBody
	)
	for _, declared := range []bool{true, false} {
		name := "chunked"
		if declared {
			name = "content-length"
		}
		t.Run(name, func(t *testing.T) {
			e := newCallbackEnv(t, "sqlite", func(o *Options) { o.MaxBodyBytes = maxBody })
			body := bytes.Repeat([]byte("x"), size)
			gate := make(chan struct{})
			bodies := make([]*gateBody, deliveries)
			done := make([]chan int, deliveries)
			for i := range deliveries {
				bodies[i], done[i] = newGateBody(body, gate), make(chan int, 1)
				req := httptest.NewRequest(http.MethodPost, CallbackPath+testToken, bodies[i])
				req.ContentLength = -1
				if declared {
					req.ContentLength = size
				}
				req.Header.Set("Content-Type", "application/rss+xml")
				req.Header.Set("X-Hub-Signature", "sha256=00")
				go func() {
					rec := httptest.NewRecorder()
					e.s.ServeHTTP(rec, req)
					done[i] <- rec.Code
				}()
			}
			// Every delivery is either being read (its body at the gate)
			// or answered already.
			codes := map[int]int{}
			var waiting []int
			for i := range deliveries {
				select {
				case <-bodies[i].atGate:
					waiting = append(waiting, i)
				case code := <-done[i]:
					codes[code]++
				}
			}
			held := 0
			for _, i := range waiting {
				held += bodies[i].read()
			}
			if held > budget {
				t.Errorf("%d deliveries hold %d bytes of unverified bodies at once, over the budget of %d", len(waiting), held, budget)
			}
			if len(waiting) > budget/size {
				t.Errorf("%d deliveries read at once, want at most %d", len(waiting), budget/size)
			}
			if codes[http.StatusServiceUnavailable] != deliveries-len(waiting) || len(waiting) == 0 {
				t.Errorf("answers before the bodies ended: %v, %d still reading; want the rest answered 503", codes, len(waiting))
			}
			close(gate)
			for _, i := range waiting {
				if code := <-done[i]; code != http.StatusAccepted {
					t.Errorf("delivery %d read whole: %d, want 202 (wrong signature, acknowledged)", i, code)
				}
			}
			// What was taken is given back: a signed delivery of the
			// largest size allowed is read and stored.
			big := pushedFeed("after")
			big = append(big, bytes.Repeat([]byte(" "), maxBody-len(big))...)
			if code := e.deliver(big); code != http.StatusNoContent {
				t.Fatalf("a signed delivery after the burst: %d, want 204", code)
			}
		})
	}
}
