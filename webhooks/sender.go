package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// Defaults for the zero values of SenderOptions.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultUserAgent = "feedpoller-webhooks/1 (+https://github.com/feedpoller/feedpoller)"
)

// AddressPolicy says which addresses a host may be reached at, refusing
// internal ones unless the operator allowed them. *fetch.Policy is one: a
// webhook target is held to the same policy as every fetch.
type AddressPolicy interface {
	Resolve(ctx context.Context, host string) ([]netip.Addr, error)
}

// SenderOptions configure a Sender.
type SenderOptions struct {
	// Policy is required: every dial goes through it.
	Policy AddressPolicy
	// Timeout bounds one attempt, connect to the end of the answer
	// (default 10s). The worker's lease must be longer.
	Timeout time.Duration
	// UserAgent defaults to DefaultUserAgent.
	UserAgent string
	// Now is the clock attempts are stamped with (default time.Now).
	Now func() time.Time
}

// Sender POSTs deliveries. It is safe for concurrent use.
type Sender struct {
	client *http.Client
	policy AddressPolicy
	ua     string
	now    func() time.Time
}

// NewSender builds a Sender whose connections go only to addresses the
// policy passes, checked when dialling (a name cannot rebind inward after
// a check), through no proxy, never following a redirect.
func NewSender(opts SenderOptions) (*Sender, error) {
	if opts.Policy == nil {
		return nil, errors.New("webhooks: a sender needs an address policy")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Sender{policy: opts.Policy, ua: opts.UserAgent, now: opts.Now}
	transport := &http.Transport{
		// A proxy would dial for us, past the policy.
		Proxy:                 nil,
		DialContext:           s.dial,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
	}
	s.client = &http.Client{
		Transport: transport,
		Timeout:   opts.Timeout,
		// A receiver that redirects gets its answer recorded, not followed:
		// the redirect target was never checked when the webhook was made.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s, nil
}

// CloseIdleConnections closes kept-alive connections (for shutdown).
func (s *Sender) CloseIdleConnections() { s.client.CloseIdleConnections() }

// refusedError is a target the address policy refused.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// dial connects only to the addresses the policy resolved for the host,
// and checks the socket's peer against them once more before connecting.
func (s *Sender) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	ips, err := s.policy.Resolve(ctx, host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) || ctx.Err() != nil {
			return nil, err
		}
		return nil, &refusedError{err}
	}
	allowed := make(map[netip.Addr]bool, len(ips))
	for _, ip := range ips {
		allowed[ip.Unmap()] = true
	}
	d := &net.Dialer{Control: func(_, addr string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil || !allowed[ap.Addr().Unmap()] {
			return &refusedError{fmt.Errorf("dial %s: not an address the policy passed for %s", addr, host)}
		}
		return nil
	}}
	var firstErr error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// ValidateURL checks a webhook target's form: an absolute http or https
// URL with a host and no credentials. Whether its host may be reached is
// the address policy's call (CheckURL at creation, every dial after).
func ValidateURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("webhook URL %q is not a URL: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("webhook URL %q: the scheme must be http or https", raw)
	case u.Hostname() == "":
		return fmt.Errorf("webhook URL %q has no host", raw)
	case u.User != nil:
		return fmt.Errorf("webhook URL %q carries credentials; use the secret to authenticate deliveries", u.Redacted())
	}
	return nil
}

// Send makes one attempt at d and says what came of it. It never returns
// an error: every failure is an Attempt the worker records.
func (s *Sender) Send(ctx context.Context, d Delivery) Attempt {
	start := s.now()
	a := s.send(ctx, d)
	a.Number = d.Attempts + 1
	a.At = start
	a.Duration = s.now().Sub(start)
	return a
}

func (s *Sender) send(ctx context.Context, d Delivery) Attempt {
	if err := ValidateURL(d.URL); err != nil {
		return Attempt{Class: ClassRefused, Error: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Payload))
	if err != nil {
		return Attempt{Class: ClassRefused, Error: fmt.Sprintf("build request: %v", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.ua)
	req.Header.Set(HeaderDelivery, d.ID)
	req.Header.Set(HeaderEvent, d.Event)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(s.now().Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(d.Secret, d.Payload))
	resp, err := s.client.Do(req)
	if err != nil {
		var refused *refusedError
		if errors.As(err, &refused) {
			return Attempt{Class: ClassRefused, Error: refused.Error()}
		}
		return Attempt{Class: ClassRetry, Error: fmt.Sprintf("POST %s: %v", redact(d.URL), unwrapURLError(err))}
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxSnippet))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // reuse the connection when cheap
	return classify(resp, snippet, s.now())
}

// redact drops the query (which may carry a receiver's token) from a URL
// written into the delivery log.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.Redacted()
}

// unwrapURLError drops the *url.Error wrapper, whose message repeats the
// method and the full URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
