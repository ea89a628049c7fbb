package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/feedpoller/feedpoller/sources"
)

// errBodyTooLarge marks a body that went past the cap.
var errBodyTooLarge = errors.New("body too large")

// initialBodyBuf is the first buffer for a body of unknown length.
const initialBodyBuf = 32 << 10

// decodedBody wraps the response body in the decompressor its
// Content-Encoding names. The transport's own decompression is off so that
// the size cap applies to the decoded bytes, which is what a gzip bomb
// inflates.
func decodedBody(resp *http.Response) (io.Reader, error) {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return resp.Body, nil
	case "gzip", "x-gzip":
		gz, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		return gz, nil
	case "deflate":
		// "deflate" should be zlib-wrapped, but some servers send raw
		// deflate; the zlib header tells them apart.
		br := bufio.NewReader(resp.Body)
		hdr, _ := br.Peek(2)
		if len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, fmt.Errorf("deflate body: %w", err)
			}
			return zr, nil
		}
		return flate.NewReader(br), nil
	}
	return nil, fmt.Errorf("unsupported content encoding %q", enc)
}

// readCapped reads r to the end, failing with errBodyTooLarge as soon as
// more than limit bytes arrive. No buffer larger than limit+1 bytes is ever
// allocated, whatever the stream claims or inflates to.
func readCapped(r io.Reader, limit, sizeHint int64) ([]byte, error) {
	first := int64(initialBodyBuf)
	if sizeHint > 0 {
		first = sizeHint + 1 // +1 so EOF is seen without a regrow
	}
	buf := make([]byte, 0, min(first, limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, errBodyTooLarge
			}
			next := make([]byte, len(buf), min(int64(cap(buf))*2, limit+1))
			copy(next, buf)
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errBodyTooLarge
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// endSeen passes a response body through and remembers whether it ended
// cleanly, which tells a body the server cut short (the connection closed
// early: worth another try) from a complete body whose compressed stream
// is itself truncated (broken at the source: not).
type endSeen struct {
	r     io.ReadCloser
	ended bool
}

func (e *endSeen) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		e.ended = true
	}
	return n, err
}

func (e *endSeen) Close() error { return e.r.Close() }

// tooLargeError is the failure for a body over the cap. It is permanent:
// the same URL will be as large next time.
func tooLargeError(limit int64) *sources.FetchError {
	return &sources.FetchError{Kind: sources.KindPermanent, Msg: "response body exceeds " + fmtBytes(limit) + " limit"}
}
