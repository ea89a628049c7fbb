package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// Defaults for the zero values of SenderOptions.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultUserAgent = "feedpoller-webhooks/1 (+https://github.com/feedpoller/feedpoller)"
)

// SenderOptions configure a Sender.
type SenderOptions struct {
	// Policy is required: every connection is dialled through it, so a
	// webhook target is held to the same address policy as every fetch.
	Policy *fetch.Policy
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
	policy *fetch.Policy
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
		DialContext:           opts.Policy.DialContext,
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
func (s *Sender) Send(ctx context.Context, d model.PendingDelivery) model.DeliveryAttempt {
	start := s.now()
	a := s.send(ctx, d)
	a.Number = d.Attempts + 1
	a.At = start
	a.Duration = s.now().Sub(start)
	return a
}

func (s *Sender) send(ctx context.Context, d model.PendingDelivery) model.DeliveryAttempt {
	if err := ValidateURL(d.URL); err != nil {
		return model.DeliveryAttempt{Class: model.AttemptRefused, Error: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Payload))
	if err != nil {
		return model.DeliveryAttempt{Class: model.AttemptRefused, Error: fmt.Sprintf("build request: %v", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.ua)
	req.Header.Set(HeaderDelivery, d.ID)
	req.Header.Set(HeaderEvent, d.Event)
	ts := s.now().Unix()
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(d.Secret, d.Payload))
	// The Standard Webhooks headers, set as written (lower case, as the
	// specification names them) rather than canonicalised.
	req.Header[HeaderWebhookID] = []string{d.ID}
	req.Header[HeaderWebhookTimestamp] = []string{strconv.FormatInt(ts, 10)}
	req.Header[HeaderWebhookSignature] = []string{SignStandard(d.Secret, d.ID, ts, d.Payload)}
	resp, err := s.client.Do(req)
	if err != nil {
		if fetch.IsRefused(err) {
			return model.DeliveryAttempt{Class: model.AttemptRefused, Error: unwrapURLError(err).Error()}
		}
		return model.DeliveryAttempt{Class: model.AttemptRetry, Error: fmt.Sprintf("POST %s: %v", redact(d.URL), unwrapURLError(err))}
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
