package fetch

import (
	"net/netip"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// registrableDomain is the key politeness, the breaker and rate-limit
// bookkeeping share: "blog.example.co.uk" and "www.example.co.uk" are one
// site. IP addresses and single-label hosts (localhost) stand for
// themselves.
func registrableDomain(host string) string {
	host = normHost(strings.Trim(host, "[]"))
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	if !strings.Contains(host, ".") {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

// RegistrableDomain is the site a host belongs to ("blog.example.co.uk"
// and "www.example.co.uk" are both "example.co.uk"); an IP address or a
// single-label host stands for itself. Politeness keys on it, and so do
// checks that two URLs belong to one site.
func RegistrableDomain(host string) string { return registrableDomain(host) }
