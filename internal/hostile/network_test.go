package hostile_test

import (
	"compress/gzip"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/hostile"
)

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestHangTimesOutAndCloseReleasesIt(t *testing.T) {
	s := hostile.New()
	defer s.Close()
	_, err := client(300 * time.Millisecond).Get(s.EndpointURL("hang"))
	if !isTimeout(err) {
		t.Fatalf("GET /hang: %v, want a timeout", err)
	}
	if s.Hits("hang") != 1 {
		t.Errorf("Hits(hang) = %d, want 1", s.Hits("hang"))
	}

	// A request still hanging when the server closes ends with an error
	// instead of keeping Close waiting.
	errc := make(chan error, 1)
	go func() {
		resp, err := client(time.Minute).Get(s.EndpointURL("hang"))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	for s.Hits("hang") < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	guard := ctxTimeout(t, 20*time.Second)
	select {
	case <-closed:
	case <-guard.Done():
		t.Fatal("Close waited for the hanging request")
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the hanging request got an answer")
		}
	case <-guard.Done():
		t.Fatal("the hanging request never ended")
	}
}

func TestTrickleSendsOneByteASecond(t *testing.T) {
	s := start(t)
	resp, err := client(1500 * time.Millisecond).Get(s.EndpointURL("trickle"))
	if err != nil {
		t.Fatalf("GET /trickle: headers should come at once: %v", err)
	}
	defer resp.Body.Close()
	wantStatus(t, resp, http.StatusOK)
	got, err := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if !isTimeout(err) {
		t.Fatalf("reading /trickle: %v, want the client's timeout", err)
	}
	if len(got) < 1 || len(got) > 3 || !strings.HasPrefix(`<?xml`, string(got)) {
		t.Errorf("got %q in 1.5 s, want the first one or two bytes of a feed", got)
	}
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func TestResetDropsTheConnection(t *testing.T) {
	s := start(t)
	resp, err := client(5 * time.Second).Get(s.EndpointURL("reset"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET /reset answered %d", resp.StatusCode)
	}
	if !isReset(err) {
		t.Errorf("GET /reset: %v, want a connection reset", err)
	}
	if s.Hits("reset") == 0 {
		t.Error("Hits(reset) = 0")
	}
}

func TestResetMidBodyTruncatesTheFeed(t *testing.T) {
	s := start(t)
	resp, err := client(5 * time.Second).Get(s.EndpointURL("reset-midbody"))
	if err != nil {
		t.Fatalf("GET /reset-midbody: the status line should arrive: %v", err)
	}
	defer resp.Body.Close()
	wantStatus(t, resp, http.StatusOK)
	got, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err == nil || !isReset(err) {
		t.Errorf("reading the body: %v, want a reset or unexpected EOF", err)
	}
	if int64(len(got)) >= resp.ContentLength {
		t.Errorf("read %d of %d promised bytes: not truncated", len(got), resp.ContentLength)
	}
}

func TestHugeStreams100MB(t *testing.T) {
	s := start(t)
	resp, err := client(60 * time.Second).Get(s.EndpointURL("huge"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength != -1 {
		t.Errorf("Content-Length %d: the size should only show by reading", resp.ContentLength)
	}
	head := make([]byte, 64)
	if _, err := io.ReadFull(resp.Body, head); err != nil || !strings.HasPrefix(string(head), "<?xml") {
		t.Fatalf("head %q, %v", head, err)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 2*hostile.HugeBytes))
	if err != nil || n+64 != hostile.HugeBytes {
		t.Errorf("body %d bytes (%v), want %d", n+64, err, hostile.HugeBytes)
	}
}

func TestGzipBombInflatesFarBeyondItsSize(t *testing.T) {
	s := start(t)
	resp, err := client(60 * time.Second).Get(s.EndpointURL("gzipbomb"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q: sent gzip although the client did not ask", resp.Header.Get("Content-Encoding"))
	}
	if resp.ContentLength <= 0 || resp.ContentLength > 4<<20 {
		t.Errorf("compressed size %d, want a small bomb (≤ 4 MiB)", resp.ContentLength)
	}
	// Inflate only 64 MiB — the bomb is 2 GiB — and check how little of the
	// wire that took.
	counting := &countingReader{r: resp.Body}
	zr, err := gzip.NewReader(counting)
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	const sample = 64 << 20
	n, err := io.Copy(io.Discard, io.LimitReader(zr, sample))
	if err != nil || n != sample {
		t.Fatalf("inflated %d bytes (%v), want %d", n, err, sample)
	}
	if ratio := float64(n) / float64(counting.n); ratio < 500 {
		t.Errorf("expansion ratio %.0f, want a bomb (≥ 500)", ratio)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestCloseBreaksTricklingResponses(t *testing.T) {
	s := hostile.New()
	defer s.Close()
	resp, err := client(time.Minute).Get(s.EndpointURL("trickle"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	s.Close()
	_, err = io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if err == nil {
		t.Error("after Close the trickled body ended cleanly; want a broken transfer")
	}
}
