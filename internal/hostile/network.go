package hostile

import (
	"bytes"
	"compress/gzip"
	"context"
	"net"
	"net/http"
	"strconv"
	"time"
)

// serveHang never answers. It returns when the client leaves, or when the
// server closes, dropping the connection then: returning normally would make
// net/http send an empty 200, which is an answer.
func (s *Server) serveHang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
		s.dropIfClosing(w)
	}
}

// dropIfClosing resets the connection of an unfinished response when the
// server is closing, so the client sees a broken transfer rather than a
// cleanly ended, truncated body.
func (s *Server) dropIfClosing(w http.ResponseWriter) {
	select {
	case <-s.closing:
	default:
		return
	}
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		abort(conn)
	}
}

// serveTrickle answers 200 at once, then sends a valid feed one byte a second.
func (s *Server) serveTrickle(w http.ResponseWriter, r *http.Request) {
	body := feedDoc(s.URL(), "trickle", "Trickle", 3)
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; i < len(body); i++ {
		if _, err := w.Write([]byte{body[i]}); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		if !s.sleep(r.Context(), tick.C) {
			s.dropIfClosing(w)
			return
		}
	}
}

// sleep waits for the next tick; false when the client left or the server is
// closing.
func (s *Server) sleep(ctx context.Context, tick <-chan time.Time) bool {
	select {
	case <-tick:
		return true
	case <-ctx.Done():
		return false
	case <-s.closing:
		return false
	}
}

// serveReset drops the connection with a TCP RST and no answer.
func (s *Server) serveReset(w http.ResponseWriter, r *http.Request) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "cannot hijack: "+err.Error(), http.StatusInternalServerError)
		return
	}
	abort(conn)
}

// serveResetMidBody promises a whole feed, sends half of it, then resets.
func (s *Server) serveResetMidBody(w http.ResponseWriter, r *http.Request) {
	body := feedDoc(s.URL(), "reset-midbody", "Half a feed", 10)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "cannot hijack: "+err.Error(), http.StatusInternalServerError)
		return
	}
	// A client that went away makes the writes fail: that is the end of
	// this endpoint's work either way.
	_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml; charset=utf-8\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n")
	_, _ = rw.WriteString(body[:len(body)/2])
	_ = rw.Flush()
	// Give the half body a moment to leave before the RST discards it.
	time.Sleep(50 * time.Millisecond)
	abort(conn)
}

// abort closes conn so that the peer sees a reset rather than a clean FIN.
func abort(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// HugeBytes is the length of the /huge body.
const HugeBytes = 100 << 20

// serveHuge streams HugeBytes of a feed whose one description never ends,
// from a single reused chunk, without a Content-Length.
func (s *Server) serveHuge(w http.ResponseWriter, r *http.Request) {
	head := `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Huge</title><link>` + s.URL() + `/huge</link><description>`
	tail := "</description></channel></rss>\n"
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte(head)); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("lorem ipsum "), 64<<10/12)
	left := HugeBytes - len(head) - len(tail)
	for left > 0 {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			s.dropIfClosing(w)
			return
		default:
		}
		n := min(left, len(chunk))
		if _, err := w.Write(chunk[:n]); err != nil {
			return
		}
		left -= n
	}
	_, _ = w.Write([]byte(tail))
}

// Gzip bomb shape: one small gzip member with the start of a feed, then the
// same member of bombMemberBytes spaces bombRepeats times. RFC 1952 allows a
// gzip stream to be several members, and Go's gzip reader (like most) reads
// them all, so the spaces member is compressed once and repeated.
const (
	bombMemberBytes = 16 << 20
	bombRepeats     = 128
	// BombInflatedBytes is roughly what /gzipbomb inflates to (2 GiB).
	BombInflatedBytes = bombMemberBytes * bombRepeats
)

// bombParts compresses the two members once per server, on first use.
func (s *Server) bombParts() []byte {
	s.bombOnce.Do(func() {
		var head, spaces bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&head, gzip.BestCompression)
		_, _ = zw.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Bomb</title><link>http://127.0.0.1/</link><description>`))
		_ = zw.Close()
		zw, _ = gzip.NewWriterLevel(&spaces, gzip.BestCompression)
		block := bytes.Repeat([]byte{' '}, 1<<20)
		for i := 0; i < bombMemberBytes/len(block); i++ {
			_, _ = zw.Write(block)
		}
		_ = zw.Close()
		s.bomb = append(head.Bytes(), spaces.Bytes()...)
		s.bombHead = head.Len()
	})
	return s.bomb
}

// serveGzipBomb sends the bomb as Content-Encoding: gzip, asked for or not.
func (s *Server) serveGzipBomb(w http.ResponseWriter, r *http.Request) {
	parts := s.bombParts()
	head, member := parts[:s.bombHead], parts[s.bombHead:]
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Content-Length", strconv.Itoa(len(head)+bombRepeats*len(member)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(head); err != nil {
		return
	}
	for i := 0; i < bombRepeats; i++ {
		if _, err := w.Write(member); err != nil {
			return
		}
	}
}
