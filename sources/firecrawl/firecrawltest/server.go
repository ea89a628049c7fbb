package firecrawltest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Unlimited is the Credits value that never runs out.
const Unlimited = -1

// maxRequestBody is Express's JSON body-parser limit on the real API.
const maxRequestBody = 10 << 20

// Config configures a fake server. The zero value is a self-hosted
// instance (any key accepted) with no credits left: set Credits to
// Unlimited or a positive number.
type Config struct {
	// APIKey, when set, is the only bearer token accepted. Empty accepts
	// anything, as a self-hosted instance does.
	APIKey string
	// Credits left; every HTTP 200 consumes one. 0 answers 402, Unlimited
	// never runs out.
	Credits int
	// RatePerMinute caps requests per API key in fixed 60 s windows
	// (0: no limit).
	RatePerMinute int
	// SendRetryAfter adds a Retry-After header to 429 answers. The real API
	// sends none, hence the default false.
	SendRetryAfter bool
	// Blocklist holds target hosts answered with 403 (subdomains included).
	Blocklist []string
	// TimeScale converts the API's own milliseconds (scrape timeout,
	// waitFor, slow-target delays) to real time: 0.001 makes the default
	// 30 s scrape timeout last 30 ms. 0 means 1 (real time).
	TimeScale float64
	// Now replaces the clock of the rate limiter (nil: time.Now).
	Now func() time.Time
	// FetchTargets makes the fake fetch a target that has no scenario for
	// real, as a self-hosted Firecrawl does: following redirects, with no
	// address policy of its own. It never leaves loopback: a target (or a
	// redirect) whose address Routes does not lead to loopback fails as an
	// unreachable host. Without it such targets fail the same way.
	FetchTargets bool
	// Routes maps a target's host:port to the address the fake dials
	// instead when it fetches: the network as Firecrawl sees it, e.g.
	// "169.254.169.254:80" to a loopback server standing in for a cloud
	// metadata service.
	Routes map[string]string
}

// Request is one recorded call to the fake.
type Request struct {
	Method string
	Path   string
	Header http.Header
	// RawBody is the request body as sent; Body is it decoded, nil when it
	// is not a JSON object.
	RawBody []byte
	Body    map[string]any
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give the SDK (no trailing slash).
	URL string

	cfg       Config
	srv       *httptest.Server
	done      chan struct{}
	closeOnce sync.Once

	// web fetches targets for FetchTargets.
	web *http.Client

	mu        sync.Mutex
	credits   int
	scenarios map[string]Scenario
	faults    []Fault
	requests  []Request
	windows   map[string]*rateWindow
}

type rateWindow struct {
	start time.Time
	count int
}

// NewServer starts a fake on 127.0.0.1. Close it when done.
func NewServer(cfg Config) *Server {
	s := &Server{
		cfg:       cfg,
		done:      make(chan struct{}),
		credits:   cfg.Credits,
		scenarios: map[string]Scenario{},
		windows:   map[string]*rateWindow{},
	}
	s.web = targetClient(cfg.Routes)
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	return s
}

// New starts a fake that is closed when the test ends.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	s := NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

// Close stops the server, first releasing every handler that is stalling
// (slow headers, slow body, slow target) so Close never hangs.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
		s.web.CloseIdleConnections()
	})
}

// Handle registers the scenario for a target: an exact URL (as sent, or
// after the API's scheme defaulting) or a bare host name. Exact URLs win
// over hosts. Targets with no scenario are fetched for real with
// Config.FetchTargets, and otherwise fail as an unreachable site does:
// 500 SCRAPE_ALL_ENGINES_FAILED.
func (s *Server) Handle(target string, sc Scenario) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scenarios[target] = sc
}

// Enqueue appends one-shot overrides: each applies to the next scrape
// request that has none pending before it.
func (s *Server) Enqueue(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// PendingFaults is how many overrides have not been used yet.
func (s *Server) PendingFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Credits reports the credits left (Unlimited when unlimited).
func (s *Server) Credits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.credits
}

// SetCredits replaces the credits left.
func (s *Server) SetCredits(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.credits = n
}

// ServeHTTP implements the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), RawBody: raw}
	var body map[string]any
	if json.Unmarshal(raw, &body) == nil {
		rec.Body = body
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/scrape" {
		writeExpressNotFound(w, r)
		return
	}
	if len(raw) > maxRequestBody {
		writeJSON(w, http.StatusRequestEntityTooLarge, nil, errorBody("", "request entity too large"))
		return
	}
	f, hasFault := s.popFault()
	if hasFault {
		if f.Kind == FaultSlowHeaders {
			if !s.sleep(r.Context(), f.Delay) {
				return
			}
		} else if f.replacesResponse() {
			s.serveFault(w, r, f)
			return
		}
	}
	out := s.process(r, raw)
	if hasFault && out.success != nil && f.shapesSuccess() {
		s.serveShaped(w, r, f, out)
		return
	}
	if out.status == http.StatusOK {
		s.spendCredit()
	}
	writeJSON(w, out.status, out.header, out.body)
}

func (s *Server) popFault() (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.faults) == 0 {
		return Fault{}, false
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	return f, true
}

func (s *Server) spendCredit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.credits > 0 {
		s.credits--
	}
}

// scenarioFor finds the registered scenario of a target.
func (s *Server) scenarioFor(sent string, normalised *url.URL) (Scenario, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc, ok := s.scenarios[sent]; ok {
		return sc, true
	}
	if sc, ok := s.scenarios[normalised.String()]; ok {
		return sc, true
	}
	sc, ok := s.scenarios[strings.ToLower(normalised.Hostname())]
	return sc, ok
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// scaled converts API milliseconds to real time.
func (s *Server) scaled(ms int) time.Duration {
	scale := s.cfg.TimeScale
	if scale <= 0 {
		scale = 1
	}
	return time.Duration(float64(ms) * float64(time.Millisecond) * scale)
}

// sleep waits d, returning false early when the client went away or the
// server is closing, so stalled handlers never outlive their test.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

// stall blocks until the client goes away or the server closes.
func (s *Server) stall(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
	}
}
