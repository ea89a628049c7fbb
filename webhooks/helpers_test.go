package webhooks_test

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/fakeclock"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/webhooks"
	"github.com/feedpoller/feedpoller/webhooks/webhookstest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// quiet keeps the expected warnings out of the test output.
var quiet = slog.New(slog.DiscardHandler)

// loopbackPolicy is the real address policy with loopback opened, as a
// test receiver on 127.0.0.1 needs.
func loopbackPolicy(t *testing.T) *fetch.Policy {
	p, err := fetch.NewPolicy(fetch.Options{Allow: []string{"127.0.0.1"}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rig is a worker over an in-memory outbox with a fake clock.
type rig struct {
	clock   *fakeclock.Clock
	outbox  *webhookstest.MemoryOutbox
	sender  *webhooks.Sender
	worker  *webhooks.Worker
	metrics *webhooks.Metrics
}

func newRig(t *testing.T, policy *fetch.Policy, b webhooks.Backoff) *rig {
	t.Helper()
	r := &rig{clock: fakeclock.New(t0), outbox: webhookstest.NewMemoryOutbox(), metrics: webhooks.NewMetrics(nil)}
	var err error
	if r.sender, err = webhooks.NewSender(webhooks.SenderOptions{Policy: policy, Now: r.clock.Now}); err != nil {
		t.Fatal(err)
	}
	if b.Jitter == nil {
		b.Jitter = func() float64 { return 0.5 }
	}
	r.worker, err = webhooks.NewWorker(webhooks.WorkerOptions{Outbox: r.outbox, Poster: r.sender, Owner: "test",
		Backoff: b, Now: r.clock.Now, Metrics: r.metrics, Lease: time.Minute, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// enqueue writes one promotion's delivery to hook, due now.
func (r *rig) enqueue(t *testing.T, hook int64, id string) {
	t.Helper()
	body, err := webhooks.PromotedBody(id, 1, webhooks.ContentItem{ID: 42, Title: "Go 1.26 is out", URL: "https://go.dev/blog/go1.26",
		Summary: "The release.", Relevance: 0.83, PromotedAt: r.clock.Now(),
		Source: webhooks.Source{ID: 7, Title: "The Go Blog", URL: "https://go.dev/blog/feed.atom"}})
	if err != nil {
		t.Fatal(err)
	}
	r.outbox.Enqueue(hook, id, webhooks.EventContentItemPromoted, body, r.clock.Now(), r.clock.Now())
}

// drive runs the worker, moving the clock to each next attempt, until
// delivery id has ended or rounds run out; it returns the final row.
func (r *rig) drive(t *testing.T, id string, rounds int) webhookstest.Row {
	t.Helper()
	for range rounds {
		if _, err := r.worker.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		row, _ := r.outbox.Row(id)
		if row.Status != webhookstest.StatusPending {
			return row
		}
		r.clock.Set(row.NextAt)
	}
	row, _ := r.outbox.Row(id)
	t.Fatalf("delivery %s still pending after %d rounds: %+v", id, rounds, row)
	return row
}

// canary is a listener that counts the connections it accepts.
type canary struct {
	ln    net.Listener
	conns atomic.Int64
}

func newCanary(t *testing.T) *canary {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &canary{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.conns.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return c
}

func (c *canary) port() string {
	_, p, _ := net.SplitHostPort(c.ln.Addr().String())
	return p
}

// seqResolver answers each lookup of a name with the next of its answers
// (the last one repeats): a name that rebinds.
type seqResolver struct {
	mu      sync.Mutex
	answers map[string][]string
	lookups int
}

func (r *seqResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	as := r.answers[host]
	if len(as) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	ip := as[0]
	if len(as) > 1 {
		r.answers[host] = as[1:]
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}
