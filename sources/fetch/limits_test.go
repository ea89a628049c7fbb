package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

func gzipBytes(t *testing.T, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := make([]byte, 1<<20)
	for written := 0; written < size; written += len(chunk) {
		if _, err := zw.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGzipBombStopsAtCap(t *testing.T) {
	const inflated = 64 << 20
	bomb := gzipBytes(t, inflated)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write(bomb)
	}))
	defer srv.Close()
	opts := testOptions()
	opts.MaxBodyBytes = 1 << 20

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
	runtime.ReadMemStats(&after)

	fe := asFetchError(t, err)
	if fe.Kind != sources.KindPermanent || fe.Msg != "response body exceeds 1 MiB limit" {
		t.Errorf("kind %v msg %q", fe.Kind, fe.Msg)
	}
	// The bomb inflates to 64 MiB; reading must stop near the 1 MiB cap.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d MiB while reading a bomb capped at 1 MiB", alloc>>20)
	}
}

func TestGzipBodyDecoded(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("<rss>hello</rss>"))
	_ = zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(buf.Bytes())
	}))
	defer srv.Close()
	resp, err := New(testOptions()).Get(context.Background(), Request{URL: srv.URL})
	if err != nil || string(resp.Body) != "<rss>hello</rss>" || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("Get = %v, %v", resp, err)
	}
}

func TestCorruptGzipIsPermanent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write([]byte("definitely not gzip"))
	}))
	defer srv.Close()
	_, err := New(testOptions()).Get(context.Background(), Request{URL: srv.URL})
	if fe := asFetchError(t, err); fe.Kind != sources.KindPermanent {
		t.Errorf("kind %v (%v)", fe.Kind, err)
	}
}

// TestTruncatedGzipIsPermanent: the server sends its whole (declared)
// body, and the gzip stream inside stops short. That body is broken at the
// source, so it is not fetched again within the call; a connection that
// closes before the declared body ended still is.
func TestTruncatedGzipIsPermanent(t *testing.T) {
	full := gzipBytes(t, 64<<10)
	cases := []struct {
		name     string
		serve    func(w http.ResponseWriter)
		kind     sources.ErrorKind
		msg      string
		requests int32
	}{
		{name: "stream cut inside a complete body", serve: func(w http.ResponseWriter) {
			cut := full[:len(full)/2]
			w.Header().Set("Content-Length", fmt.Sprint(len(cut)))
			_, _ = w.Write(cut)
		}, kind: sources.KindPermanent, msg: "truncated compressed body", requests: 1},
		{name: "stream cut, close-delimited body", serve: func(w http.ResponseWriter) {
			// No length and no chunking: the body ends when the server
			// closes, so all it sent was received.
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: application/rss+xml\r\nConnection: close\r\n\r\n")
			_, _ = buf.Write(full[:len(full)/2])
			_ = buf.Flush()
		}, kind: sources.KindPermanent, msg: "truncated compressed body", requests: 1},
		{name: "connection closed before the declared length", serve: func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", fmt.Sprint(len(full)))
			_, _ = w.Write(full[:len(full)/2])
			w.(http.Flusher).Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				_ = conn.Close()
			}
		}, kind: sources.KindTransient, msg: "connection closed before the body ended", requests: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Type", "application/rss+xml")
				tc.serve(w)
			}))
			defer srv.Close()
			opts := testOptions()
			opts.Attempts = 3
			_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
			if fe := asFetchError(t, err); fe.Kind != tc.kind || fe.Msg != tc.msg {
				t.Errorf("kind %v msg %q, want %v %q (%v)", fe.Kind, fe.Msg, tc.kind, tc.msg, err)
			}
			if n := hits.Load(); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

func TestHugeBodyStopsAtCap(t *testing.T) {
	for _, declareLength := range []bool{true, false} {
		t.Run(fmt.Sprintf("content-length=%v", declareLength), func(t *testing.T) {
			var sent atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				const total = 64 << 20
				if declareLength {
					w.Header().Set("Content-Length", fmt.Sprint(total))
				}
				chunk := bytes.Repeat([]byte("a"), 64<<10)
				for sent.Load() < total {
					n, err := w.Write(chunk)
					sent.Add(int64(n))
					if err != nil {
						return
					}
				}
			}))
			defer srv.Close()
			opts := testOptions()
			opts.MaxBodyBytes = 512 << 10
			_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
			if fe := asFetchError(t, err); fe.Msg != "response body exceeds 512 KiB limit" {
				t.Errorf("msg %q", fe.Msg)
			}
			if sent.Load() >= 64<<20 {
				t.Error("the whole 64 MiB body was sent: reading did not stop at the cap")
			}
		})
	}
}

func TestBodyAtCapIsAccepted(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 4096)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) }))
	defer srv.Close()
	opts := testOptions()
	opts.MaxBodyBytes = 4096
	resp, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
	if err != nil || len(resp.Body) != 4096 {
		t.Fatalf("a body of exactly the cap: %v", err)
	}
}

func TestSlowTrickleTimesOut(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for {
			select {
			case <-done:
				return
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
			_, _ = w.Write([]byte("x"))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	defer close(done)
	opts := testOptions()
	opts.Timeout = 300 * time.Millisecond
	opts.Attempts = 2
	_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
	fe := asFetchError(t, err)
	if fe.Kind != sources.KindTransient || fe.Msg != "timed out after 300ms" {
		t.Errorf("kind %v msg %q", fe.Kind, fe.Msg)
	}
}

func TestSlowHeadersTimeOut(t *testing.T) {
	srv := hangingServer(t)
	opts := testOptions()
	opts.ResponseHeaderTimeout = 100 * time.Millisecond
	opts.Attempts = 1
	_, err := New(opts).Get(context.Background(), Request{URL: srv.URL})
	if fe := asFetchError(t, err); fe.Kind != sources.KindTransient || fe.Msg != "no response headers within 100ms" {
		t.Errorf("kind %v msg %q", fe.Kind, fe.Msg)
	}
}

func TestCallerDeadlineNamedInMessage(t *testing.T) {
	srv := hangingServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := New(testOptions()).Get(ctx, Request{URL: srv.URL})
	if fe := asFetchError(t, err); fe.Msg != "timed out after 200ms" {
		t.Errorf("msg %q", fe.Msg)
	}
}

func TestRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscanf(r.URL.Path, "/chain/%d", &n)
		if n == 0 {
			_, _ = w.Write([]byte("end of chain"))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/a", http.StatusFound) })
	mux.HandleFunc("/self", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/self", http.StatusTemporaryRedirect)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(testOptions())

	resp, err := c.Get(context.Background(), Request{URL: srv.URL + "/chain/10"})
	if err != nil || string(resp.Body) != "end of chain" || resp.FinalURL != srv.URL+"/chain/0" {
		t.Errorf("10 redirects must be followed: %v", err)
	}
	cases := []struct{ path, msg string }{
		{"/chain/11", "too many redirects (10)"},
		{"/a", "redirect loop"},
		{"/self", "redirect loop"},
	}
	for _, tc := range cases {
		_, err := c.Get(context.Background(), Request{URL: srv.URL + tc.path})
		if fe := asFetchError(t, err); fe.Kind != sources.KindPermanent || fe.Msg != tc.msg {
			t.Errorf("%s: kind %v msg %q, want %q", tc.path, fe.Kind, fe.Msg, tc.msg)
		}
	}
}

func TestConnectionRefusedIsTransient(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	opts := testOptions()
	opts.Attempts = 2
	_, err := New(opts).Get(context.Background(), Request{URL: addr})
	if fe := asFetchError(t, err); fe.Kind != sources.KindTransient || fe.Msg != "connection refused" {
		t.Errorf("kind %v msg %q", fe.Kind, fe.Msg)
	}
}

// hangingServer never answers: each request waits until its client gives
// up or the test ends.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv
}
