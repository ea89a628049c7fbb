package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRegistrableDomain(t *testing.T) {
	cases := map[string]string{
		"www.example.com":      "example.com",
		"blog.example.co.uk":   "example.co.uk",
		"EXAMPLE.com.":         "example.com",
		"a.b.c.github.io":      "c.github.io",
		"127.0.0.1":            "127.0.0.1",
		"[::1]":                "::1",
		"localhost":            "localhost",
		"com":                  "com",
		"feeds.internal":       "feeds.internal",
		"news.bbc.co.uk":       "bbc.co.uk",
		"xn--nxasmq6b.example": "xn--nxasmq6b.example",
	}
	for host, want := range cases {
		if got := registrableDomain(host); got != want {
			t.Errorf("registrableDomain(%q) = %q, want %q", host, got, want)
		}
	}
}

// concurrencyServer records the most requests it ever had in flight.
func concurrencyServer(t *testing.T, hold time.Duration) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	var inFlight, peak, total atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		total.Add(1)
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(hold)
		inFlight.Add(-1)
	}))
	t.Cleanup(srv.Close)
	return srv, &peak, &total
}

func TestPerDomainConcurrencyCap(t *testing.T) {
	for _, limit := range []int{1, 2} {
		srv, peak, total := concurrencyServer(t, 30*time.Millisecond)
		opts := testOptions()
		opts.PerDomainConcurrency = limit
		c := New(opts)
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Go(func() {
				if _, err := c.Get(context.Background(), Request{URL: srv.URL}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if total.Load() != 8 || peak.Load() > int32(limit) {
			t.Errorf("limit %d: %d requests, peak %d in flight", limit, total.Load(), peak.Load())
		}
	}
}

func TestPerDomainGapSpacesStarts(t *testing.T) {
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
	}))
	defer srv.Close()
	opts := testOptions()
	const gap = 40 * time.Millisecond
	opts.PerDomainGap = gap
	c := New(opts)
	// Every start is reserved at least one gap after the previous one and
	// the first no earlier than now, so the fourth request cannot reach
	// the server before three gaps have passed since this point, however
	// late a loaded machine runs any of them. (A spread between the first
	// and last arrival would not do: a delayed first arrival shrinks it.)
	begin := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Go(func() { _, _ = c.Get(context.Background(), Request{URL: srv.URL}) })
	}
	wg.Wait()
	if len(arrivals) != 4 {
		t.Fatalf("%d requests", len(arrivals))
	}
	last := arrivals[0]
	for _, a := range arrivals {
		if a.After(last) {
			last = a
		}
	}
	if elapsed := last.Sub(begin); elapsed < 3*gap {
		t.Errorf("the fourth request arrived %v after the first could start; a %v gap needs at least %v", elapsed, gap, 3*gap)
	}
}

func TestWaitingForSlotHonoursContext(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
	}))
	defer srv.Close()
	opts := testOptions()
	opts.PerDomainConcurrency = 1
	c := New(opts)
	go func() { _, _ = c.Get(context.Background(), Request{URL: srv.URL}) }()
	for hits.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Get(ctx, Request{URL: srv.URL + "/second"})
	close(release)
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) || hits.Load() != 1 {
		t.Errorf("queued request: err %v hits %d", err, hits.Load())
	}
}
