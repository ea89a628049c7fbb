package fetch

import "net/netip"

// RegistrableDomain is the site a host belongs to ("blog.example.co.uk"
// and "www.example.co.uk" are both "example.co.uk"); an IP address or a
// single-label host stands for itself. Politeness keys on it, and so do
// checks that two URLs belong to one site.
func RegistrableDomain(host string) string { return registrableDomain(host) }

// InternalAddress names why ip is not a public address ("loopback",
// "private", "link-local", ...), or returns "" when it is public: the
// same judgement the fetcher makes before dialling.
func InternalAddress(ip netip.Addr) string { return forbiddenReason(ip) }
