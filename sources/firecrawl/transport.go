package firecrawl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
)

// errBodyTooLarge stops a response larger than Options.MaxBodyBytes.
var errBodyTooLarge = errors.New("firecrawl response body exceeds limit")

// exchange is what the capture transport saw of one call.
type exchange struct {
	responded bool
	status    int
	header    http.Header
	body      []byte
	tooLarge  bool
	// cutOff: the headers came but the body did not finish.
	cutOff bool
}

// captureTransport is the per-call RoundTripper: it binds the request to
// the caller's context (the SDK builds requests without one), and records
// status, headers and the raw body the SDK would otherwise hide, reading
// the body here so it can be capped.
type captureTransport struct {
	base    http.RoundTripper
	ctx     context.Context
	maxBody int64
	seen    *exchange
}

func (t *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// Derive from the request's context, which carries http.Client's
	// timeout, and cancel it as well when the caller's ctx ends.
	ctx, cancel := context.WithCancelCause(req.Context())
	defer cancel(nil)
	stop := context.AfterFunc(t.ctx, func() { cancel(context.Cause(t.ctx)) })
	defer stop()

	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	t.seen.responded = true
	t.seen.status = resp.StatusCode
	t.seen.header = resp.Header.Clone()
	if resp.ContentLength > t.maxBody {
		t.seen.tooLarge = true
		return nil, errBodyTooLarge
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		// One allocation of the announced size instead of a doubling
		// series: a large page arrives as one large string.
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, t.maxBody+1)); err != nil {
		t.seen.cutOff = true
		return nil, err
	}
	if int64(buf.Len()) > t.maxBody {
		t.seen.tooLarge = true
		return nil, errBodyTooLarge
	}
	t.seen.body = buf.Bytes()
	sdkBody := t.seen.body
	if resp.StatusCode == http.StatusOK {
		// A 200 is decoded from t.seen.body, never from what the SDK makes
		// of it: it gets a bare success, not a second copy of the page to
		// read and decode.
		sdkBody = sdkSuccess
	}
	resp.Body = io.NopCloser(bytes.NewReader(sdkBody))
	resp.ContentLength = int64(len(sdkBody))
	return resp, nil
}

// sdkSuccess is what the SDK reads of a 200 answer.
var sdkSuccess = []byte(`{"success":true,"data":{}}`)
