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
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBody+1))
	if err != nil {
		t.seen.cutOff = true
		return nil, err
	}
	if int64(len(body)) > t.maxBody {
		t.seen.tooLarge = true
		return nil, errBodyTooLarge
	}
	t.seen.body = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}
