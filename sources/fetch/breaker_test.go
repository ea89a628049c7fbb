package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/fakeclock"
	"github.com/feedpoller/feedpoller/sources"
)

// switchServer answers with the status currently stored in code.
func switchServer(t *testing.T) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	var code, hits atomic.Int32
	code.Store(500)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(code.Load()))
	}))
	t.Cleanup(srv.Close)
	return srv, &code, &hits
}

func TestBreakerOpensHalfOpensCloses(t *testing.T) {
	srv, code, hits := switchServer(t)
	clock := newFakeClock()
	opts := testOptions()
	opts.Attempts = 1
	opts.Now = clock.Now
	c := New(opts)
	get := func() error {
		_, err := c.Get(context.Background(), Request{URL: srv.URL + "/feed"})
		return err
	}

	for i := 0; i < 5; i++ {
		if fe := asFetchError(t, get()); fe.Kind != sources.KindTransient {
			t.Fatalf("failure %d: kind %v", i, fe.Kind)
		}
		clock.Advance(time.Second)
	}
	openedAt := clock.Now().Add(-time.Second)

	// Open: no request goes out, the error says when to come back.
	fe := asFetchError(t, get())
	if fe.Kind != sources.KindDeferred || fe.Msg != "circuit open for 127.0.0.1" ||
		!fe.RetryAfter.Equal(openedAt.Add(30*time.Second)) {
		t.Fatalf("open: kind %v msg %q retry %v", fe.Kind, fe.Msg, fe.RetryAfter)
	}
	if hits.Load() != 5 {
		t.Fatalf("server saw %d requests while open, want 5", hits.Load())
	}

	// Half-open after 30s: one trial; a failed trial opens it again.
	clock.Advance(30 * time.Second)
	if fe := asFetchError(t, get()); fe.Kind != sources.KindTransient {
		t.Fatalf("failed trial: kind %v", fe.Kind)
	}
	if fe := asFetchError(t, get()); fe.Kind != sources.KindDeferred {
		t.Fatalf("after failed trial: kind %v, want deferred", fe.Kind)
	}
	if hits.Load() != 6 {
		t.Fatalf("hits %d, want 6", hits.Load())
	}

	// Two successful trials close it.
	clock.Advance(31 * time.Second)
	code.Store(200)
	for i := 0; i < 2; i++ {
		if err := get(); err != nil {
			t.Fatalf("trial %d: %v", i, err)
		}
	}
	// Closed: a single failure no longer defers anything.
	code.Store(500)
	_ = get()
	code.Store(200)
	if err := get(); err != nil {
		t.Fatalf("closed breaker deferred a request: %v", err)
	}
	if hits.Load() != 10 {
		t.Errorf("hits %d, want 10", hits.Load())
	}
}

func TestBreakerFailuresOutsideWindowDoNotOpen(t *testing.T) {
	srv, _, hits := switchServer(t)
	clock := newFakeClock()
	opts := testOptions()
	opts.Attempts = 1
	opts.Now = clock.Now
	c := New(opts)
	for i := 0; i < 8; i++ {
		_, err := c.Get(context.Background(), Request{URL: srv.URL})
		if fe := asFetchError(t, err); fe.Kind == sources.KindDeferred {
			t.Fatalf("breaker opened after %d failures spread over %v", i, time.Duration(i)*20*time.Second)
		}
		clock.Advance(20 * time.Second) // only 3 failures fit in any 60s window
	}
	if hits.Load() != 8 {
		t.Errorf("hits %d", hits.Load())
	}
}

func TestBreakerSuccessResetsCount(t *testing.T) {
	srv, code, _ := switchServer(t)
	opts := testOptions()
	opts.Attempts = 1
	c := New(opts)
	for i := 0; i < 12; i++ {
		if i%4 == 3 {
			code.Store(200)
		} else {
			code.Store(500)
		}
		_, err := c.Get(context.Background(), Request{URL: srv.URL})
		if err != nil && sources.KindOf(err) == sources.KindDeferred {
			t.Fatalf("call %d deferred: failures between successes must not accumulate", i)
		}
	}
}

func TestBreakerHalfOpenAllowsOneTrial(t *testing.T) {
	clock := newFakeClock()
	var hits atomic.Int32
	block := make(chan struct{})
	var fail atomic.Bool
	fail.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if fail.Load() {
			w.WriteHeader(500)
			return
		}
		<-block
	}))
	defer srv.Close()
	opts := testOptions()
	opts.Attempts = 1
	opts.Now = clock.Now
	opts.BreakerFailures = 2
	c := New(opts)
	for i := 0; i < 2; i++ {
		_, _ = c.Get(context.Background(), Request{URL: srv.URL})
	}
	clock.Advance(time.Minute)
	fail.Store(false)

	trialDone := make(chan error)
	go func() {
		_, err := c.Get(context.Background(), Request{URL: srv.URL})
		trialDone <- err
	}()
	for hits.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	_, err := c.Get(context.Background(), Request{URL: srv.URL + "/other"})
	if sources.KindOf(err) != sources.KindDeferred {
		t.Errorf("second request during the trial: %v, want deferred", err)
	}
	close(block)
	if err := <-trialDone; err != nil {
		t.Errorf("trial: %v", err)
	}
	if hits.Load() != 3 {
		t.Errorf("hits %d, want 3", hits.Load())
	}
}

func TestRefusedAddressDoesNotTripBreaker(t *testing.T) {
	opts := testOptions()
	opts.AllowPrivateNetworks = false
	opts.BreakerFailures = 2
	c := New(opts)
	for i := 0; i < 5; i++ {
		_, err := c.Get(context.Background(), Request{URL: "http://127.0.0.1:1/"})
		if fe := asFetchError(t, err); fe.Kind != sources.KindRefused {
			t.Fatalf("call %d: kind %v (%v)", i, fe.Kind, err)
		}
	}
}

// rateLimitedSite answers 429 with retryAfter to every path limited
// says is limited (200 to the others), fetched by a client on clock; hits
// counts the requests that reached it.
func rateLimitedSite(t *testing.T, clock *fakeclock.Clock, retryAfter string, limited func(path string) bool) (get func(path string) error, hits *atomic.Int32) {
	hits = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if !limited(r.URL.Path) {
			return
		}
		w.Header().Set("Retry-After", retryAfter)
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	opts := testOptions()
	opts.Now = clock.Now
	c := New(opts)
	return func(path string) error {
		_, err := c.Get(context.Background(), Request{URL: srv.URL + path})
		return err
	}, hits
}

func TestRetryAfterRememberedPerURLThenPerDomain(t *testing.T) {
	clock := newFakeClock()
	get, hits := rateLimitedSite(t, clock, "120", func(path string) bool { return path != "/ok" })

	if fe := asFetchError(t, get("/a")); fe.Kind != sources.KindRateLimited || fe.Status != 429 {
		t.Fatalf("first 429: %v", fe)
	}
	// The same URL is not asked again before its Retry-After.
	fe := asFetchError(t, get("/a"))
	if fe.Kind != sources.KindDeferred || !fe.RetryAfter.Equal(clock.Now().Add(120*time.Second)) || hits.Load() != 1 {
		t.Fatalf("remembered Retry-After: kind %v retry %v hits %d", fe.Kind, fe.RetryAfter, hits.Load())
	}
	// Other URLs still go out until 429s pile up across URLs.
	if err := get("/ok"); err != nil {
		t.Fatalf("/ok before the domain is deferred: %v", err)
	}
	clock.Advance(10 * time.Second)
	_ = get("/b")
	clock.Advance(10 * time.Second)
	_ = get("/c")
	if hits.Load() != 4 {
		t.Fatalf("hits %d, want 4", hits.Load())
	}
	fe = asFetchError(t, get("/ok"))
	if fe.Kind != sources.KindDeferred || !fe.RetryAfter.Equal(clock.Now().Add(120*time.Second)) {
		t.Fatalf("domain-wide deferral: kind %v retry %v msg %q", fe.Kind, fe.RetryAfter, fe.Msg)
	}
	if hits.Load() != 4 {
		t.Fatalf("a deferred domain was contacted: hits %d", hits.Load())
	}
	clock.Advance(121 * time.Second)
	if err := get("/ok"); err != nil {
		t.Fatalf("after the pause: %v", err)
	}
}

func TestRepeated429OnOneURLDoesNotDeferDomain(t *testing.T) {
	clock := newFakeClock()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hot" {
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	opts := testOptions()
	opts.Now = clock.Now
	c := New(opts)
	for i := 0; i < 5; i++ {
		_, _ = c.Get(context.Background(), Request{URL: srv.URL + "/hot"})
	}
	if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/cold"}); err != nil {
		t.Errorf("one noisy URL deferred its whole domain: %v", err)
	}
}

func TestDomainStateIsBounded(t *testing.T) {
	opts := testOptions()
	opts.MaxDomains = 50
	c := New(opts)
	for i := 0; i < 500; i++ {
		ds := c.domain(registrableDomain(fmt.Sprintf("www.site%d.com", i)))
		c.putDomain(ds)
	}
	c.mu.Lock()
	n := len(c.domains)
	c.mu.Unlock()
	if n > 50 || n < 40 {
		t.Errorf("%d domains kept, want at most the cap of 50 and most of them", n)
	}
}

// TestBreakerIgnoresAnswersAboutOneURL: many feeds and pages live on one
// host, so a 4xx of one URL (missing, forbidden, gone, timed out) never
// counts against the host's breaker.
func TestBreakerIgnoresAnswersAboutOneURL(t *testing.T) {
	for _, status := range []int{400, 403, 404, 408, 410} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv, code, hits := switchServer(t)
			code.Store(int32(status))
			opts := testOptions()
			opts.Attempts = 1
			opts.BreakerFailures = 3
			c := New(opts)
			for i := 0; i < 20; i++ {
				_, err := c.Get(context.Background(), Request{URL: fmt.Sprintf("%s/post/%d", srv.URL, i)})
				if fe := asFetchError(t, err); fe.Kind == sources.KindDeferred {
					t.Fatalf("request %d deferred after %d answers of HTTP %d: %v", i, i, status, err)
				}
			}
			code.Store(200)
			if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/feed.xml"}); err != nil {
				t.Fatalf("the feed after the 4xx pages: %v", err)
			}
			if hits.Load() != 21 {
				t.Errorf("%d requests reached the host, want 21", hits.Load())
			}
		})
	}
}

// TestBreakerOpensOnHostFailures: 5xx answers and connection failures are
// the host misbehaving, and open its breaker.
func TestBreakerOpensOnHostFailures(t *testing.T) {
	cases := map[string]func(t *testing.T) string{
		"503": func(t *testing.T) string {
			srv, code, _ := switchServer(t)
			code.Store(503)
			return srv.URL
		},
		"connection refused": func(t *testing.T) string {
			srv := httptest.NewServer(http.NotFoundHandler())
			srv.Close() // nothing listens there any more
			return srv.URL
		},
	}
	for name, host := range cases {
		t.Run(name, func(t *testing.T) {
			base := host(t)
			opts := testOptions()
			opts.Attempts = 1
			opts.BreakerFailures = 3
			c := New(opts)
			for i := 0; i < 3; i++ {
				_, err := c.Get(context.Background(), Request{URL: fmt.Sprintf("%s/post/%d", base, i)})
				if fe := asFetchError(t, err); fe.Kind != sources.KindTransient {
					t.Fatalf("call %d: kind %v (%v)", i, fe.Kind, err)
				}
			}
			_, err := c.Get(context.Background(), Request{URL: base + "/feed.xml"})
			if fe := asFetchError(t, err); fe.Kind != sources.KindDeferred || fe.Msg != "circuit open for 127.0.0.1" {
				t.Fatalf("after three failures: kind %v msg %q, want the circuit open", fe.Kind, fe.Msg)
			}
		})
	}
}

// TestPageScopeKeepsItsOwnBreaker: article pages that fail open the
// pages' breaker of the domain, never the one its sources are polled by.
func TestPageScopeKeepsItsOwnBreaker(t *testing.T) {
	srv, code, hits := switchServer(t)
	code.Store(500)
	opts := testOptions()
	opts.Attempts = 1
	opts.BreakerFailures = 3
	c := New(opts)
	for i := 0; i < 3; i++ {
		_, _ = c.Get(context.Background(), Request{URL: fmt.Sprintf("%s/post/%d", srv.URL, i), Scope: ScopePage})
	}
	_, err := c.Get(context.Background(), Request{URL: srv.URL + "/post/9", Scope: ScopePage})
	if fe := asFetchError(t, err); fe.Kind != sources.KindDeferred || fe.Msg != "circuit open for 127.0.0.1 (article pages)" {
		t.Fatalf("page after three failed pages: kind %v msg %q, want the pages' circuit open", fe.Kind, fe.Msg)
	}
	code.Store(200)
	if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/feed.xml"}); err != nil {
		t.Fatalf("the feed on the same host: %v, want it fetched", err)
	}
	if hits.Load() != 4 {
		t.Errorf("%d requests, want 4", hits.Load())
	}
}

// TestRateLimitWaitsAreBounded: two URLs of a host answering 429 with a
// Retry-After of a year defer the URL and the whole host for at most
// MaxRateLimitWait (the scheduler's ceiling, 24h by default), not a year:
// a healthy feed on the host is fetched again a day later, and so is each
// of the rate-limited URLs.
func TestRateLimitWaitsAreBounded(t *testing.T) {
	clock := newFakeClock()
	limited := atomic.Bool{}
	limited.Store(true)
	get, hits := rateLimitedSite(t, clock, "31536000", // a year
		func(path string) bool { return path != "/healthy" && limited.Load() })
	const bound = 24 * time.Hour // the default MaxRateLimitWait
	for _, p := range []string{"/a", "/b", "/c"} {
		fe := asFetchError(t, get(p))
		if fe.Kind != sources.KindRateLimited {
			t.Fatalf("%s: %v", p, fe)
		}
		if limit := clock.Now().Add(bound); fe.RetryAfter.After(limit) {
			t.Errorf("%s: Retry-After handed back %v, beyond the bound %v", p, fe.RetryAfter, limit)
		}
	}
	fe := asFetchError(t, get("/healthy"))
	if fe.Kind != sources.KindDeferred {
		t.Fatalf("the host after 429s from three URLs: %v, want it deferred", fe)
	}
	if limit := clock.Now().Add(bound); fe.RetryAfter.After(limit) {
		t.Fatalf("the host is deferred until %v (%q), beyond the bound %v", fe.RetryAfter, fe.Msg, limit)
	}
	clock.Advance(bound - time.Minute)
	if fe := asFetchError(t, get("/healthy")); fe.Kind != sources.KindDeferred {
		t.Fatalf("before the bound: %v, want still deferred", fe)
	}
	before := hits.Load()
	clock.Advance(time.Minute + time.Second)
	limited.Store(false)
	for _, p := range []string{"/healthy", "/a", "/b", "/c"} {
		if err := get(p); err != nil {
			t.Errorf("%s a day later: %v, want it fetched", p, err)
		}
	}
	if n := hits.Load() - before; n != 4 {
		t.Errorf("%d requests reached the host a day later, want 4", n)
	}
}

// TestZeroRetryAfterIsNotRetriedAtOnce: "Retry-After: 0", or a date
// already past, on a 429 or 503 is retried within the call only after the
// usual backoff, never at once.
func TestZeroRetryAfterIsNotRetriedAtOnce(t *testing.T) {
	clock := newFakeClock()
	opts := testOptions()
	opts.Now = clock.Now
	opts.RetryBaseDelay = time.Second
	c := New(opts)
	for _, ra := range []time.Time{clock.Now(), clock.Now().Add(-time.Hour)} {
		for attempt := 1; attempt <= 2; attempt++ {
			fe := &sources.FetchError{Kind: sources.KindRateLimited, Status: 503, RetryAfter: ra}
			wait, retry := c.retryWait(context.Background(), fe, attempt)
			// The backoff's jitter draws from half to one and a half of
			// the base, doubled per attempt.
			if min := time.Duration(attempt) * 500 * time.Millisecond; !retry || wait < min {
				t.Errorf("Retry-After %v, attempt %d: wait %v (retry %v), want at least %v", clock.Now().Sub(ra), attempt, wait, retry, min)
			}
		}
	}
}
