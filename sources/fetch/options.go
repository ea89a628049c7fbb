package fetch

import (
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"time"
)

// Defaults for the zero values of Options.
const (
	DefaultTimeout           = 30 * time.Second
	MaxTimeout               = 60 * time.Second
	DefaultConnectTimeout    = 10 * time.Second
	DefaultMaxBodyBytes      = 10 << 20
	DefaultMaxRedirects      = 10
	DefaultAttempts          = 3
	DefaultPerDomainConc     = 2
	DefaultPerDomainGap      = time.Second
	DefaultRetryBaseDelay    = 500 * time.Millisecond
	DefaultMaxRetryAfterWait = 5 * time.Second
	DefaultBreakerFailures   = 5
	DefaultBreakerWindow     = 60 * time.Second
	DefaultBreakerOpenFor    = 30 * time.Second
	DefaultBreakerCloseAfter = 2
	DefaultRateLimitHits     = 3
	DefaultRateLimitWindow   = 5 * time.Minute
	DefaultRateLimitPause    = 60 * time.Second
	DefaultMaxRateLimitWait  = 24 * time.Hour
	DefaultMaxDomains        = 10000
)

func defaultUserAgent() string {
	v := "dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return "feedpoller/" + v + " (+https://github.com/feedpoller/feedpoller)"
}

// DefaultOptions are the client's defaults, without its collaborators
// (resolver, clock, logger) and with no user agent: the daemon names
// itself.
func DefaultOptions() Options {
	o := Options{}.withDefaults()
	o.UserAgent, o.Resolver, o.Now, o.Logger = "", nil, nil, nil
	return o
}

// Check refuses options out of range, naming the field: a negative value
// where only PerDomainGap and RetryBaseDelay take one (meaning none), and
// a Timeout over MaxTimeout. New, which cannot fail, clamps what Check
// refuses; the daemon checks first.
func (o Options) Check() error {
	var errs []string
	for _, f := range []struct {
		name string
		val  int64
	}{{"Timeout", int64(o.Timeout)}, {"MaxBodyBytes", o.MaxBodyBytes}, {"MaxRedirects", int64(o.MaxRedirects)},
		{"Attempts", int64(o.Attempts)}, {"PerDomainConcurrency", int64(o.PerDomainConcurrency)},
		{"ConnectTimeout", int64(o.ConnectTimeout)}, {"ResponseHeaderTimeout", int64(o.ResponseHeaderTimeout)},
		{"MaxRetryAfterWait", int64(o.MaxRetryAfterWait)}, {"BreakerFailures", int64(o.BreakerFailures)},
		{"BreakerWindow", int64(o.BreakerWindow)}, {"BreakerOpenFor", int64(o.BreakerOpenFor)},
		{"BreakerCloseAfter", int64(o.BreakerCloseAfter)}, {"RateLimitHits", int64(o.RateLimitHits)},
		{"RateLimitWindow", int64(o.RateLimitWindow)}, {"RateLimitPause", int64(o.RateLimitPause)},
		{"MaxRateLimitWait", int64(o.MaxRateLimitWait)}, {"MaxDomains", int64(o.MaxDomains)}} {
		if f.val < 0 {
			errs = append(errs, fmt.Sprintf("%s %d is negative", f.name, f.val))
		}
	}
	if o.Timeout > MaxTimeout {
		errs = append(errs, fmt.Sprintf("Timeout %s is over %s", o.Timeout, MaxTimeout))
	}
	if len(errs) > 0 {
		return fmt.Errorf("fetch: %s", strings.Join(errs, "; "))
	}
	return nil
}

// withDefaults fills zero values and clamps the timeouts. Negative
// PerDomainGap and RetryBaseDelay mean "none" (tests use that).
func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Timeout > MaxTimeout {
		o.Timeout = MaxTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	o.ConnectTimeout = min(o.ConnectTimeout, o.Timeout)
	if o.ResponseHeaderTimeout <= 0 {
		o.ResponseHeaderTimeout = o.Timeout
	}
	o.ResponseHeaderTimeout = min(o.ResponseHeaderTimeout, o.Timeout)
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.UserAgent == "" {
		o.UserAgent = defaultUserAgent()
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.Attempts <= 0 {
		o.Attempts = DefaultAttempts
	}
	if o.PerDomainConcurrency <= 0 {
		o.PerDomainConcurrency = DefaultPerDomainConc
	}
	switch {
	case o.PerDomainGap == 0:
		o.PerDomainGap = DefaultPerDomainGap
	case o.PerDomainGap < 0:
		o.PerDomainGap = 0
	}
	switch {
	case o.RetryBaseDelay == 0:
		o.RetryBaseDelay = DefaultRetryBaseDelay
	case o.RetryBaseDelay < 0:
		o.RetryBaseDelay = 0
	}
	if o.MaxRetryAfterWait <= 0 {
		o.MaxRetryAfterWait = DefaultMaxRetryAfterWait
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.BreakerFailures <= 0 {
		o.BreakerFailures = DefaultBreakerFailures
	}
	if o.BreakerWindow <= 0 {
		o.BreakerWindow = DefaultBreakerWindow
	}
	if o.BreakerOpenFor <= 0 {
		o.BreakerOpenFor = DefaultBreakerOpenFor
	}
	if o.BreakerCloseAfter <= 0 {
		o.BreakerCloseAfter = DefaultBreakerCloseAfter
	}
	if o.RateLimitHits <= 0 {
		o.RateLimitHits = DefaultRateLimitHits
	}
	if o.RateLimitWindow <= 0 {
		o.RateLimitWindow = DefaultRateLimitWindow
	}
	if o.RateLimitPause <= 0 {
		o.RateLimitPause = DefaultRateLimitPause
	}
	if o.MaxRateLimitWait <= 0 {
		o.MaxRateLimitWait = DefaultMaxRateLimitWait
	}
	if o.MaxDomains <= 0 {
		o.MaxDomains = DefaultMaxDomains
	}
	return o
}
