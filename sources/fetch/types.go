// Package fetch is the hardened HTTP fetcher every outbound request of the
// daemon goes through: SSRF-safe dialling, timeouts, body caps, redirect
// limits, response classification, retries, and per-domain politeness.
package fetch

import (
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
	// one registrable domain (default 1s; 0 in tests).
	PerDomainConcurrency int
	PerDomainGap         time.Duration
}

// Request is one GET.
type Request struct {
	URL string
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
}
