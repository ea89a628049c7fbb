package fetch

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

func TestGetStatusClasses(t *testing.T) {
	cases := []struct {
		status     int
		retryAfter string
		wantKind   sources.ErrorKind
		wantOK     bool
		wantHits   int32 // with Attempts = 3
	}{
		{status: 200, wantOK: true, wantHits: 1},
		{status: 204, wantOK: true, wantHits: 1},
		{status: 304, wantOK: true, wantHits: 1},
		{status: 400, wantKind: sources.KindPermanent, wantHits: 1},
		{status: 401, wantKind: sources.KindPermanent, wantHits: 1},
		{status: 403, wantKind: sources.KindPermanent, wantHits: 1},
		{status: 404, wantKind: sources.KindPermanent, wantHits: 1},
		{status: 410, wantKind: sources.KindGone, wantHits: 1},
		{status: 429, wantKind: sources.KindRateLimited, wantHits: 1},
		{status: 429, retryAfter: "3600", wantKind: sources.KindRateLimited, wantHits: 1},
		{status: 503, retryAfter: "3600", wantKind: sources.KindRateLimited, wantHits: 1},
		{status: 408, wantKind: sources.KindTransient, wantHits: 3},
		{status: 500, wantKind: sources.KindTransient, wantHits: 3},
		{status: 502, wantKind: sources.KindTransient, wantHits: 3},
		{status: 503, wantKind: sources.KindTransient, wantHits: 3},
		{status: 504, wantKind: sources.KindTransient, wantHits: 3},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status)+tc.retryAfter, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(tc.status)
				if tc.status != 304 && tc.status != 204 {
					_, _ = w.Write([]byte("body"))
				}
			}))
			defer srv.Close()

			resp, err := New(testOptions()).Get(context.Background(), Request{URL: srv.URL})
			if got := hits.Load(); got != tc.wantHits {
				t.Errorf("server saw %d requests, want %d", got, tc.wantHits)
			}
			if tc.wantOK {
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				if resp.Status != tc.status {
					t.Errorf("Status = %d, want %d", resp.Status, tc.status)
				}
				return
			}
			fe := asFetchError(t, err)
			if fe.Kind != tc.wantKind || fe.Status != tc.status {
				t.Errorf("got kind %v status %d, want %v %d", fe.Kind, fe.Status, tc.wantKind, tc.status)
			}
			if want := fmt.Sprintf("HTTP %d", tc.status); fe.Msg != want {
				t.Errorf("Msg = %q, want %q", fe.Msg, want)
			}
		})
	}
}

func TestGetSuccessResponse(t *testing.T) {
	var gotUA, gotAccept, gotINM, gotIMS string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUA, gotAccept = r.UserAgent(), r.Header.Get("Accept")
		gotINM, gotIMS = r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
		w.Header().Set("Content-Type", "Application/RSS+XML; charset=utf-8")
		w.Header().Set("ETag", `W/"abc"`)
		_, _ = w.Write([]byte("<rss/>"))
	}))
	defer srv.Close()

	resp, err := New(testOptions()).Get(context.Background(), Request{
		URL: srv.URL + "/feed", Accept: "application/rss+xml", ETag: `"v1"`, LastModified: "Tue, 03 Mar 2026 10:00:00 GMT",
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "<rss/>" || resp.ContentType != "application/rss+xml" || resp.Charset != "utf-8" || resp.FinalURL != srv.URL+"/feed" {
		t.Errorf("response = %+v", resp)
	}
	if resp.Header.Get("ETag") != `W/"abc"` {
		t.Errorf("ETag header = %q", resp.Header.Get("ETag"))
	}
	if !strings.HasPrefix(gotUA, "feedpoller/") || gotAccept != "application/rss+xml" {
		t.Errorf("UA %q Accept %q", gotUA, gotAccept)
	}
	if gotINM != `"v1"` || gotIMS != "Tue, 03 Mar 2026 10:00:00 GMT" {
		t.Errorf("validators sent: If-None-Match %q If-Modified-Since %q", gotINM, gotIMS)
	}
}

func TestGetNotModified(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write([]byte("fresh"))
	}))
	defer srv.Close()
	c := New(testOptions())

	resp, err := c.Get(context.Background(), Request{URL: srv.URL, ETag: `"v1"`})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 304 || len(resp.Body) != 0 {
		t.Errorf("conditional GET: status %d body %q", resp.Status, resp.Body)
	}
	resp, err = c.Get(context.Background(), Request{URL: srv.URL, ETag: `"old"`})
	if err != nil || resp.Status != 200 || string(resp.Body) != "fresh" {
		t.Errorf("stale validator: %v %+v", err, resp)
	}
}

func TestTransientRetriedThenSucceeds(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) < 3 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()

	resp, err := New(testOptions()).Get(context.Background(), Request{URL: srv.URL})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("Get = %v, %v", resp, err)
	}
	if hits.Load() != 3 {
		t.Errorf("server saw %d requests, want 3", hits.Load())
	}
}

func TestAttemptsOneDisablesRetries(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	opts := testOptions()
	opts.Attempts = 1
	_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
	if asFetchError(t, err).Kind != sources.KindTransient || hits.Load() != 1 {
		t.Errorf("err %v after %d hits", err, hits.Load())
	}
}

func TestShortRetryAfterIsWaitedOut(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	resp, err := New(testOptions()).Get(context.Background(), Request{URL: srv.URL})
	if err != nil || string(resp.Body) != "ok" || hits.Load() != 2 {
		t.Fatalf("Get = %v, %v after %d hits; want success on the 2nd", resp, err, hits.Load())
	}
}

func TestRetryAfterForms(t *testing.T) {
	clock := newFakeClock()
	date := clock.Now().Add(2 * time.Minute)
	cases := []struct {
		name, header string
		want         time.Time
	}{
		{"seconds", "120", clock.Now().Add(120 * time.Second)},
		{"http-date", date.Format(http.TimeFormat), date},
		{"past date means now", clock.Now().Add(-time.Hour).Format(http.TimeFormat), clock.Now()},
		{"garbage", "soon", time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", tc.header)
				w.WriteHeader(http.StatusTooManyRequests)
			}))
			defer srv.Close()
			opts := testOptions()
			opts.Now = clock.Now
			opts.Attempts = 1
			_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
			fe := asFetchError(t, err)
			if fe.Kind != sources.KindRateLimited || !fe.RetryAfter.Equal(tc.want) {
				t.Errorf("kind %v RetryAfter %v, want rate_limited %v", fe.Kind, fe.RetryAfter, tc.want)
			}
		})
	}
}

func TestLongRetryAfterIsReturnedNotWaited(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := New(testOptions()).Get(ctx, Request{URL: srv.URL})
	fe := asFetchError(t, err)
	if fe.Kind != sources.KindRateLimited || fe.Status != 503 || hits.Load() != 1 {
		t.Errorf("kind %v status %d after %d hits", fe.Kind, fe.Status, hits.Load())
	}
	if ctx.Err() != nil {
		t.Error("Get waited for the Retry-After instead of returning it")
	}
}

func TestCallerCancelStopsRetries(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	opts := testOptions()
	opts.RetryBaseDelay = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the client has the 500 and starts its hour-long wait
	// (it says so in its log), not when the server counts the request:
	// that could cancel the first attempt before its answer was read.
	opts.Logger = slog.New(onMessage{msg: "fetch: retrying", do: cancel})
	_, err := New(opts).Get(ctx, Request{URL: srv.URL})
	if asFetchError(t, err).Status != 500 || hits.Load() != 1 {
		t.Errorf("err %v after %d hits", err, hits.Load())
	}
}

func TestOptionsDefaultsAndClamp(t *testing.T) {
	o := Options{Timeout: 5 * time.Minute}.withDefaults()
	if o.Timeout != MaxTimeout || o.ConnectTimeout != DefaultConnectTimeout || o.MaxBodyBytes != 10<<20 ||
		o.MaxRedirects != 10 || o.Attempts != 3 || o.PerDomainConcurrency != 2 || o.PerDomainGap != time.Second {
		t.Errorf("defaults: %+v", o)
	}
	o = Options{Timeout: 2 * time.Second, PerDomainGap: -1}.withDefaults()
	if o.ConnectTimeout != 2*time.Second || o.ResponseHeaderTimeout != 2*time.Second || o.PerDomainGap != 0 {
		t.Errorf("sub-timeouts must not exceed Timeout: %+v", o)
	}
}

func TestTransientWithLongRetryAfterNotRetried(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "600")
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	clock := newFakeClock()
	opts := testOptions()
	opts.Now = clock.Now
	_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
	fe := asFetchError(t, err)
	if fe.Kind != sources.KindTransient || hits.Load() != 1 || !fe.RetryAfter.Equal(clock.Now().Add(10*time.Minute)) {
		t.Errorf("kind %v hits %d retry %v: a named long pause must be returned, not retried through", fe.Kind, hits.Load(), fe.RetryAfter)
	}
}

// onMessage is a log handler that runs do when a record with message msg
// is logged.
type onMessage struct {
	msg string
	do  func()
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }

func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.do()
	}
	return nil
}

func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }
