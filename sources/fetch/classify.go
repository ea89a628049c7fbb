package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// statusError classifies a non-2xx, non-304 answer.
func statusError(resp *http.Response, now time.Time) *sources.FetchError {
	code := resp.StatusCode
	fe := &sources.FetchError{Status: code, Msg: fmt.Sprintf("HTTP %d", code)}
	ra := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	switch {
	case code == http.StatusTooManyRequests:
		fe.Kind, fe.RetryAfter = sources.KindRateLimited, ra
	case code == http.StatusServiceUnavailable && !ra.IsZero():
		fe.Kind, fe.RetryAfter = sources.KindRateLimited, ra
	case code == http.StatusGone:
		fe.Kind = sources.KindGone
	case code == http.StatusRequestTimeout || code >= 500:
		fe.Kind, fe.RetryAfter = sources.KindTransient, ra
	default:
		fe.Kind = sources.KindPermanent
	}
	return fe
}

// parseRetryAfter reads delay-seconds or an HTTP-date; zero when absent or
// unreadable. Dates in the past mean "now".
func parseRetryAfter(v string, now time.Time) time.Time {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return time.Time{}
		}
		// A year is far beyond any sensible pause and keeps the
		// arithmetic away from overflow.
		secs = min(secs, 365*24*3600)
		return now.Add(time.Duration(secs) * time.Second)
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}
	}
	if t.Before(now) {
		return now
	}
	return t
}

// transportError classifies a failure of http.Client.Do or of reading the
// body. parent is the caller's context, budget the time the attempt had.
func (c *Client) transportError(parent context.Context, err error, budget time.Duration) *sources.FetchError {
	var fe *sources.FetchError
	if errors.As(err, &fe) {
		return fe
	}
	if errors.As(err, new(*blockedError)) {
		return resolveFailure(err)
	}
	if perr := parent.Err(); perr != nil {
		if errors.Is(perr, context.DeadlineExceeded) {
			return timeoutError(budget)
		}
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "canceled", Err: perr}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Timeout() {
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "connect timed out after " + fmtDuration(c.opts.ConnectTimeout)}
	}
	if strings.Contains(err.Error(), "awaiting response headers") {
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "no response headers within " + fmtDuration(c.opts.ResponseHeaderTimeout)}
	}
	var nerr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()) {
		return timeoutError(budget)
	}
	if fe := resolveFailure(err); fe != nil {
		return fe
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostnameErr) {
		return &sources.FetchError{Kind: sources.KindPermanent, Msg: "TLS certificate not valid", Err: unwrapURLError(err)}
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "connection refused"}
	case errors.Is(err, syscall.ECONNRESET):
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "connection reset"}
	}
	return &sources.FetchError{Kind: sources.KindTransient, Msg: "request failed", Err: unwrapURLError(err)}
}

// resolveFailure classifies what the address policy's Resolve failed
// with: a refused host is refused (a matter of configuration), an
// unknown name permanent, any other DNS failure transient. nil when err
// is neither.
func resolveFailure(err error) *sources.FetchError {
	var blocked *blockedError
	if errors.As(err, &blocked) {
		return &sources.FetchError{Kind: sources.KindRefused, Msg: blocked.Error()}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return &sources.FetchError{Kind: sources.KindPermanent, Msg: "host not found: " + dnsErr.Name}
		}
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "DNS lookup failed for " + dnsErr.Name, Err: dnsErr}
	}
	return nil
}

// unwrapURLError drops the `Get "https://…":` prefix url.Error adds; the
// caller already knows which URL it fetched.
func unwrapURLError(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) && uerr.Err != nil {
		return uerr.Err
	}
	return err
}

func timeoutError(budget time.Duration) *sources.FetchError {
	return &sources.FetchError{Kind: sources.KindTransient, Msg: "timed out after " + fmtDuration(budget)}
}

// fmtDuration prints whole seconds ("30s", "60s") or milliseconds below one
// second, which reads better in a status line than time.Duration.String.
func fmtDuration(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%ds", int64(d.Round(time.Second)/time.Second))
	}
	// Ten-millisecond steps: a deadline observed a hair early still reads
	// as the deadline that was set.
	return fmt.Sprintf("%dms", d.Round(10*time.Millisecond).Milliseconds())
}

// fmtBytes prints a limit the way people configure it.
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
