package web

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

const fcKey = "fc-key"

// words is enough visible text for a page to count as readable.
const words = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.</p>"

func nativeFetcher(t *testing.T) *fetch.Client {
	t.Helper()
	c := fetch.New(fetch.Options{
		AllowPrivateNetworks: true, PerDomainGap: -1, RetryBaseDelay: -1, Attempts: 1,
		Timeout: 5 * time.Second,
	})
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// site is an httptest server with per-path handlers and a hit counter.
type site struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newSite(t *testing.T, routes map[string]http.HandlerFunc) *site {
	t.Helper()
	s := &site{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) hitCount(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func serve(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		_, _ = w.Write([]byte(body))
	}
}

func fakeFirecrawl(t *testing.T, cfg firecrawltest.Config) (*firecrawltest.Server, *firecrawl.Client) {
	t.Helper()
	cfg.APIKey = fcKey
	if cfg.Credits == 0 {
		cfg.Credits = firecrawltest.Unlimited
	}
	s := firecrawltest.New(t, cfg)
	return s, clientFor(t, s)
}

// clientFor is a Firecrawl client of the fake with key fcKey. Its address
// policy lets everything through: tests of the policy use policyClient.
func clientFor(t *testing.T, s *firecrawltest.Server) *firecrawl.Client {
	t.Helper()
	open, _ := fetch.NewPolicy(fetch.Options{AllowPrivateNetworks: true})
	return policyClient(t, s, open)
}

// policyClient is a Firecrawl client of the fake held to policy.
func policyClient(t *testing.T, s *firecrawltest.Server, policy firecrawl.AddressPolicy) *firecrawl.Client {
	t.Helper()
	c, err := firecrawl.New(firecrawl.Options{APIKey: fcKey, APIURL: s.URL, Timeout: 30 * time.Second, RetryBaseDelay: -1,
		Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fetchErr(t *testing.T, err error) *sources.FetchError {
	t.Helper()
	var fe *sources.FetchError
	if !errors.As(err, &fe) {
		t.Fatalf("err %T %v is not a FetchError", err, err)
	}
	return fe
}

// logBuffer captures a Fetcher's log lines.
func logBuffer() (*slog.Logger, *syncBuffer) {
	b := &syncBuffer{}
	return slog.New(slog.NewTextHandler(b, nil)), b
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
