package fetch

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// FuzzHostileInputs feeds arbitrary URLs, Retry-After values and
// addresses through the parsers that see server-controlled text; none may
// panic, and a URL that passes must be http(s) with a host and no
// credentials.
func FuzzHostileInputs(f *testing.F) {
	for _, s := range []string{"http://example.com/", "https://u:p@x/", "120", "Wed, 21 Oct 2015 07:28:00 GMT", "::ffff:127.0.0.1", "javascript:alert(1)", "-1", "99999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if u, fe := checkURL(s, ""); fe == nil {
			if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Hostname() == "" {
				t.Fatalf("accepted %q", s)
			}
			_ = registrableDomain(u.Hostname())
		}
		if ra := parseRetryAfter(s, now); !ra.IsZero() && ra.Before(now) {
			t.Fatalf("Retry-After %q in the past: %v", s, ra)
		}
		if ip, err := netip.ParseAddr(strings.TrimSpace(s)); err == nil {
			_ = forbiddenReason(ip)
		}
	})
}
