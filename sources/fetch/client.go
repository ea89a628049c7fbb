package fetch

import (
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// defaultAccept is sent when a Request names no Accept header.
const defaultAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// drainLimit is how much of an error body is read so the connection can be
// reused; anything longer is cheaper to drop with the connection.
const drainLimit = 64 << 10

// Client performs hardened GETs. All its state (politeness, breakers,
// Retry-After memory) lives inside it; it is safe for concurrent use.
type Client struct {
	opts   Options
	http   *http.Client
	policy *Policy

	mu      sync.Mutex
	domains map[string]*domainState
}

// New builds a Client; zero Options fields take their defaults. Unusable
// Allow entries are logged and skipped.
func New(opts Options) *Client {
	opts = opts.withDefaults()
	policy, err := NewPolicy(opts)
	if err != nil {
		opts.Logger.Warn("fetch: ignoring allow entry", "err", err)
	}
	dialer := &safeDialer{policy: policy, timeout: opts.ConnectTimeout}
	transport := &http.Transport{
		// No proxy: a proxy would dial for us and bypass the address checks.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    opts.ConnectTimeout,
		ResponseHeaderTimeout:  opts.ResponseHeaderTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    opts.PerDomainConcurrency,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		// Decompression is ours, so the body cap counts decoded bytes.
		DisableCompression: true,
	}
	c := &Client{opts: opts, policy: policy, domains: map[string]*domainState{}}
	c.http = &http.Client{Transport: transport, CheckRedirect: c.checkRedirect}
	return c
}

// Policy is the address policy the client dials by, for services that
// fetch on our behalf and must be held to the same rules.
func (c *Client) Policy() *Policy { return c.policy }

// CloseIdleConnections closes kept-alive connections (for shutdown).
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// Get fetches req.URL. It returns a Response for 2xx and 304 answers;
// every failure is a *sources.FetchError saying how to treat it. Transient
// failures are retried inside the call, with backoff, up to
// Options.Attempts times.
func (c *Client) Get(ctx context.Context, req Request) (*Response, error) {
	u, ferr := checkURL(req.URL, "")
	if ferr != nil {
		return nil, ferr
	}
	ds := c.domain(registrableDomain(u.Hostname()))
	defer c.putDomain(ds)
	key := u.String()

	trial, ferr := c.admit(ds, req.Scope, key)
	if ferr != nil {
		return nil, ferr
	}
	for attempt := 1; ; attempt++ {
		resp, ferr := c.attempt(ctx, ds, u, req)
		if ferr == nil {
			c.finish(ds, req.Scope, trial, key, outcomeSuccess, nil)
			return resp, nil
		}
		wait, retry := c.retryWait(ctx, ferr, attempt)
		if retry {
			c.opts.Logger.Debug("fetch: retrying", "url", key, "attempt", attempt, "err", ferr.Error(), "wait", wait)
			if sources.Sleep(ctx, wait) == nil {
				continue
			}
		}
		c.finish(ds, req.Scope, trial, key, outcomeOf(ctx, ferr), ferr)
		return nil, ferr
	}
}

// retryWait says whether a failed attempt is worth another one, and after
// how long.
func (c *Client) retryWait(ctx context.Context, fe *sources.FetchError, attempt int) (time.Duration, bool) {
	if attempt >= c.opts.Attempts || ctx.Err() != nil {
		return 0, false
	}
	var wait time.Duration
	switch fe.Kind {
	case sources.KindTransient:
		if errors.Is(fe.Err, context.Canceled) {
			return 0, false
		}
		wait = sources.RetryWait(c.opts.RetryBaseDelay, attempt)
		// A failing server that names a pause is obeyed: wait it out when
		// short, otherwise hand it back rather than hammer it.
		if !fe.RetryAfter.IsZero() {
			ra := fe.RetryAfter.Sub(c.opts.Now())
			if ra > c.opts.MaxRetryAfterWait {
				return 0, false
			}
			wait = max(wait, ra)
		}
	case sources.KindRateLimited:
		// Only a short, explicit pause is waited out here; anything longer
		// belongs to the scheduler. "Retry-After: 0" (or a date past) is
		// not an invitation to ask again at once: the retry backs off as
		// any other does.
		if fe.RetryAfter.IsZero() {
			return 0, false
		}
		wait = fe.RetryAfter.Sub(c.opts.Now())
		if wait > c.opts.MaxRetryAfterWait {
			return 0, false
		}
		wait = max(wait, sources.RetryWait(c.opts.RetryBaseDelay, attempt))
	default:
		return 0, false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		return 0, false
	}
	return wait, true
}

// outcomeOf says how a failed call counts for the domain's breaker: only
// failures that show the host itself misbehaving count against it
// (connection errors, timeouts, 5xx). A 4xx is about one URL: many feeds
// and pages share a host, and a missing page says nothing of the others.
func outcomeOf(ctx context.Context, fe *sources.FetchError) outcome {
	if ctx.Err() != nil {
		return outcomeNeutral
	}
	if fe.Kind == sources.KindTransient && (fe.Status == 0 || fe.Status >= 500) {
		return outcomeFailure
	}
	return outcomeNeutral
}

// attempt makes one request, holding a politeness slot throughout.
func (c *Client) attempt(ctx context.Context, ds *domainState, u *url.URL, req Request) (*Response, *sources.FetchError) {
	budget := c.opts.Timeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < budget {
		budget = time.Until(dl)
	}
	release, err := c.acquireSlot(ctx, ds)
	if err != nil {
		return nil, c.transportError(ctx, err, budget)
	}
	defer release()
	actx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()

	hreq, err := http.NewRequestWithContext(actx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Msg: "invalid URL", Err: err}
	}
	hreq.Header.Set("User-Agent", c.opts.UserAgent)
	accept := req.Accept
	if accept == "" {
		accept = defaultAccept
	}
	hreq.Header.Set("Accept", accept)
	hreq.Header.Set("Accept-Encoding", "gzip, deflate")
	if req.ETag != "" {
		hreq.Header.Set("If-None-Match", req.ETag)
	}
	if req.LastModified != "" {
		hreq.Header.Set("If-Modified-Since", req.LastModified)
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		fe := c.transportError(ctx, err, budget)
		if fe.Kind == sources.KindRefused && redirectedAway(err, hreq.URL) {
			// The source redirected to a host the policy refuses: the
			// source's doing, a failure of the source, not a matter of
			// configuration.
			cp := *fe
			cp.Kind = sources.KindPermanent
			fe = &cp
		}
		return nil, fe
	}
	defer resp.Body.Close()

	out := &Response{
		Status:      resp.StatusCode,
		Header:      resp.Header,
		ContentType: mediaType(resp.Header.Get("Content-Type")),
		Charset:     charsetParam(resp.Header.Get("Content-Type")),
		FinalURL:    resp.Request.URL.String(),
	}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		out.Body = []byte{}
		return out, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
		return nil, statusError(resp, c.opts.Now())
	}

	body, ferr := c.readBody(ctx, resp, budget)
	if ferr != nil {
		return nil, ferr
	}
	out.Body = body
	// The body is handed out decoded, so these no longer describe it.
	out.Header.Del("Content-Encoding")
	out.Header.Del("Content-Length")
	return out, nil
}

func (c *Client) readBody(ctx context.Context, resp *http.Response, budget time.Duration) ([]byte, *sources.FetchError) {
	limit := c.opts.MaxBodyBytes
	raw := &endSeen{r: resp.Body}
	resp.Body = raw
	r, err := decodedBody(resp)
	if err != nil {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Msg: err.Error()}
	}
	var hint int64
	if r == io.Reader(raw) {
		if resp.ContentLength > limit {
			return nil, tooLargeError(limit)
		}
		hint = resp.ContentLength
	}
	body, err := readCapped(r, limit, hint)
	switch {
	case err == nil:
		return body, nil
	case errors.Is(err, errBodyTooLarge):
		return nil, tooLargeError(limit)
	case isCorrupt(err):
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Msg: "corrupt compressed body", Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF) && raw.ended && r != io.Reader(raw):
		// The server's bytes all arrived and the compressed stream inside
		// them stops short: the body it sent is broken, and sending it
		// again will not mend it.
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Msg: "truncated compressed body", Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF) && ctx.Err() == nil:
		return nil, &sources.FetchError{Kind: sources.KindTransient, Msg: "connection closed before the body ended"}
	}
	return nil, c.transportError(ctx, err, budget)
}

func isCorrupt(err error) bool {
	var ce flate.CorruptInputError
	return errors.As(err, &ce) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) ||
		errors.Is(err, zlib.ErrChecksum) || errors.Is(err, zlib.ErrHeader)
}

// mediaType is the Content-Type without parameters, lower-case.
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// charsetParam is the Content-Type's charset parameter, lower-case, also
// when the rest of the header does not parse.
func charsetParam(ct string) string {
	if _, params, err := mime.ParseMediaType(ct); err == nil {
		return strings.ToLower(strings.TrimSpace(params["charset"]))
	}
	for _, p := range strings.Split(ct, ";")[1:] {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "charset") {
			return strings.ToLower(strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
	return ""
}

// checkURL accepts absolute http(s) URLs without credentials. prefix
// ("redirect to ") says where the URL came from in the message.
func checkURL(raw, prefix string) (*url.URL, *sources.FetchError) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Msg: prefix + "invalid URL", Err: err}
	}
	return u, checkParsedURL(u, prefix)
}

func checkParsedURL(u *url.URL, prefix string) *sources.FetchError {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return &sources.FetchError{Kind: sources.KindPermanent, Msg: fmt.Sprintf("%sunsupported URL scheme %q (only http and https)", prefix, u.Scheme)}
	case u.User != nil:
		return &sources.FetchError{Kind: sources.KindPermanent, Msg: prefix + "URL with credentials is not allowed"}
	case u.Hostname() == "":
		return &sources.FetchError{Kind: sources.KindPermanent, Msg: prefix + "URL has no host"}
	}
	return nil
}

// checkRedirect applies the URL rules to every hop, counts hops and spots
// loops. Address checks happen at dial time for each hop as for the first
// request.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opts.MaxRedirects {
		return &sources.FetchError{Kind: sources.KindPermanent, Msg: fmt.Sprintf("too many redirects (%d)", c.opts.MaxRedirects)}
	}
	if fe := checkParsedURL(req.URL, "redirect to "); fe != nil {
		return fe
	}
	next := req.URL.String()
	for _, v := range via {
		if v.URL.String() == next {
			return &sources.FetchError{Kind: sources.KindPermanent, Msg: "redirect loop"}
		}
	}
	return nil
}

// redirectedAway reports whether the request that failed with err was a
// redirect to another host than orig's.
func redirectedAway(err error, orig *url.URL) bool {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return false
	}
	u, perr := url.Parse(ue.URL)
	return perr == nil && !strings.EqualFold(u.Host, orig.Host)
}
