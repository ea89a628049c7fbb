// Package fetch is the hardened HTTP fetcher every outbound request of the
// daemon goes through: SSRF-safe dialling, timeouts, body caps, redirect
// limits, response classification, retries, and per-domain politeness.
package fetch

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Options configures a Client. Zero values take the documented defaults.
type Options struct {
	// Timeout bounds one whole request (connect, headers, body). Default
	// 30s; values above 60s are clamped to 60s.
	Timeout time.Duration
	// MaxBodyBytes caps a response body after decompression. Default 10 MiB.
	MaxBodyBytes int64
	// UserAgent names the daemon; default "feedpoller/<version> (+https://github.com/feedpoller/feedpoller)".
	UserAgent string
	// AllowPrivateNetworks lets requests reach loopback, private, link-local
	// and metadata addresses. Tests and local demos set it.
	AllowPrivateNetworks bool
	// Allow lists hosts or CIDRs that may be reached even when private.
	Allow []string
	// MaxRedirects, default 10.
	MaxRedirects int
	// Attempts is how many times a transient failure is tried within one
	// call, default 3 (1 disables retries).
	Attempts int
	// PerDomainConcurrency caps requests in flight per registrable domain
	// (default 2); PerDomainGap is the minimum gap between request starts to
	// one registrable domain (default 1s; negative disables the gap, as
	// tests do).
	PerDomainConcurrency int
	PerDomainGap         time.Duration

	// ConnectTimeout bounds dialling and the TLS handshake (default 10s,
	// never more than Timeout). ResponseHeaderTimeout bounds the wait for
	// the status line once the request is sent (default Timeout).
	ConnectTimeout        time.Duration
	ResponseHeaderTimeout time.Duration
	// RetryBaseDelay is the first backoff between attempts (default 500ms,
	// negative: none); each later one doubles, with jitter.
	RetryBaseDelay time.Duration
	// MaxRetryAfterWait is the longest Retry-After honoured by waiting and
	// retrying inside one call (default 5s); a longer one is returned to
	// the caller as FetchError.RetryAfter.
	MaxRetryAfterWait time.Duration

	// Resolver turns host names into addresses; default net.DefaultResolver.
	// Tests map invented names to chosen addresses with it.
	Resolver Resolver
	// Now is the clock of the breaker and Retry-After bookkeeping; default
	// time.Now.
	Now func() time.Time
	// Logger receives retry and breaker events; default slog.Default().
	Logger *slog.Logger

	// BreakerFailures failed calls within BreakerWindow open a registrable
	// domain's circuit (defaults 5 and 60s); after BreakerOpenFor (30s) one
	// trial call at a time is let through, and BreakerCloseAfter (2)
	// successful trials close it again. Only failures of the host count:
	// connection errors, timeouts and 5xx answers, never a 4xx of one URL.
	// Each Scope has its own circuit.
	BreakerFailures   int
	BreakerWindow     time.Duration
	BreakerOpenFor    time.Duration
	BreakerCloseAfter int
	// RateLimitHits 429 answers from at least two distinct URLs of one
	// registrable domain within RateLimitWindow (defaults 3 and 5m) defer
	// the whole domain until the latest Retry-After (or RateLimitPause,
	// default 60s, when the server named none).
	RateLimitHits   int
	RateLimitWindow time.Duration
	RateLimitPause  time.Duration
	// MaxRateLimitWait bounds how long a Retry-After keeps a URL, or a
	// whole registrable domain, deferred (default 24h, the scheduler's
	// ceiling): a server asking for a year must not silence every feed it
	// hosts for a year. The daemon sets it to the scheduler's own bound.
	MaxRateLimitWait time.Duration
	// MaxDomains bounds the per-domain state kept (default 10000); the
	// least recently used idle domains are forgotten first.
	MaxDomains int
}

// Resolver is the part of *net.Resolver the fetcher needs.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Scope separates the breaker and rate-limit bookkeeping of kinds of
// requests to one registrable domain. Politeness (requests in flight, the
// gap between starts) is shared by all scopes.
type Scope int

const (
	// ScopeSource is the default: polls and validation of sources.
	ScopeSource Scope = iota
	// ScopePage is article pages fetched for the extraction cascade. They
	// keep a breaker of their own: a host whose article pages fail is
	// spared further page fetches for a while, but the feeds it serves
	// are still polled.
	ScopePage
	scopeCount
)

func (s Scope) String() string {
	if s == ScopePage {
		return "pages"
	}
	return "sources"
}

// suffix is what the scope adds to a domain in messages.
func (s Scope) suffix() string {
	if s == ScopePage {
		return " (article pages)"
	}
	return ""
}

// Request is one GET.
type Request struct {
	URL string
	// Scope is whose breaker and rate-limit memory the request answers to;
	// the zero value is ScopeSource.
	Scope Scope
	// Accept header; empty sends a generic one.
	Accept string
	// Conditional GET validators, sent verbatim when non-empty.
	ETag         string
	LastModified string
}

// Response is a completed GET whose status was 2xx or 304.
type Response struct {
	Status      int
	Header      http.Header
	Body        []byte // decompressed, at most MaxBodyBytes
	ContentType string // media type without parameters, lower-case
	FinalURL    string // after redirects
	// Charset is the Content-Type's charset parameter, lower-case, empty
	// when the server named none; the body is handed out undecoded.
	Charset string
}
