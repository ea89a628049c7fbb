package fetch

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/fakeclock"
	"github.com/feedpoller/feedpoller/sources"
)

// testOptions is the baseline for tests: private networks open (httptest
// listens on 127.0.0.1), no politeness gap, near-zero backoff.
func testOptions() Options {
	return Options{
		AllowPrivateNetworks: true,
		PerDomainGap:         -1,
		RetryBaseDelay:       time.Millisecond,
		Timeout:              5 * time.Second,
		Logger:               slog.New(slog.DiscardHandler),
	}
}

// newFakeClock is the breaker and Retry-After tests' clock.
func newFakeClock() *fakeclock.Clock {
	return fakeclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

// mapResolver answers from a fixed table and records every lookup; answers
// can change per call to play DNS rebinding.
type mapResolver struct {
	mu      sync.Mutex
	answers map[string][]string // host → successive answers; the last repeats
	lookups map[string]int
}

func newMapResolver(m map[string][]string) *mapResolver {
	return &mapResolver{answers: m, lookups: map[string]int{}}
}

func (r *mapResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok || len(seq) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := r.lookups[host]
	r.lookups[host] = n + 1
	ip := seq[min(n, len(seq)-1)]
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

func (r *mapResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups[host]
}

// asFetchError fails the test unless err carries a FetchError.
func asFetchError(t *testing.T, err error) *sources.FetchError {
	t.Helper()
	var fe *sources.FetchError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) carries no *sources.FetchError", err, err)
	}
	return fe
}

// multiResolver answers every name with all of ips at once.
type multiResolver struct{ ips []string }

func (r *multiResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	out := make([]net.IPAddr, 0, len(r.ips))
	for _, ip := range r.ips {
		out = append(out, net.IPAddr{IP: net.ParseIP(ip)})
	}
	return out, nil
}
