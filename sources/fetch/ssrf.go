package fetch

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// addrRules are the address rules of the policy: which IPs are internal,
// and which hosts and networks the operator opened anyway.
type addrRules struct {
	allowPrivate bool
	allowHosts   map[string]bool
	allowNets    []netip.Prefix
}

// newAddrRules builds the rules from the usable Allow entries; the error
// names the entries it had to skip.
func newAddrRules(allowPrivate bool, allow []string) (addrRules, error) {
	p := addrRules{allowPrivate: allowPrivate, allowHosts: map[string]bool{}}
	var errs []error
	for _, a := range allow {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if strings.Contains(a, "/") {
			pfx, err := netip.ParsePrefix(a)
			if err != nil {
				errs = append(errs, fmt.Errorf("allow entry %q: %w", a, err))
				continue
			}
			p.allowNets = append(p.allowNets, pfx.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(strings.Trim(a, "[]")); err == nil {
			p.allowNets = append(p.allowNets, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
			continue
		}
		if h, _, err := net.SplitHostPort(a); err == nil {
			a = h // a port says nothing about which addresses are fine
		}
		p.allowHosts[normHost(a)] = true
	}
	return p, errors.Join(errs...)
}

func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
}

// hostAllowed reports whether the host name is on the allow list, which
// opens every address it resolves to.
func (p addrRules) hostAllowed(host string) bool {
	return p.allowPrivate || p.allowHosts[normHost(host)]
}

// reason returns why ip may not be dialled, or "" when it may.
func (p addrRules) reason(ip netip.Addr, hostAllowed bool) string {
	ip = ip.Unmap().WithZone("")
	if hostAllowed || p.allowPrivate {
		return ""
	}
	for _, n := range p.allowNets {
		if n.Contains(ip) {
			return ""
		}
	}
	return forbiddenReason(ip)
}

var (
	cgnat         = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork   = netip.MustParsePrefix("0.0.0.0/8")
	ietfProtocol  = netip.MustParsePrefix("192.0.0.0/24")
	benchmarking  = netip.MustParsePrefix("198.18.0.0/15")
	reservedV4    = netip.MustParsePrefix("240.0.0.0/4")
	nat64Local    = netip.MustParsePrefix("64:ff9b:1::/48")
	siteLocal     = netip.MustParsePrefix("fec0::/10")
	metadataAWSv6 = netip.MustParseAddr("fd00:ec2::254")
)

// forbiddenReason names why ip is internal, or "" when it is public.
func forbiddenReason(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified(), thisNetwork.Contains(ip):
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip == metadataAWSv6:
		return "cloud metadata"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		// 169.254.169.254 lands here too: it is link-local before it is
		// anything else.
		return "link-local"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.Is4() && ip.IsPrivate():
		return "private"
	case ip.Is6() && ip.IsPrivate():
		return "unique-local"
	case siteLocal.Contains(ip):
		return "site-local"
	case cgnat.Contains(ip):
		return "carrier-grade NAT"
	case ietfProtocol.Contains(ip), benchmarking.Contains(ip), reservedV4.Contains(ip), nat64Local.Contains(ip):
		return "reserved"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	return embeddedReason(ip)
}

// ipv4Embedding is an IPv6 form that carries an IPv4 address inside, which
// a translator, tunnel or the kernel may deliver to that IPv4 address.
type ipv4Embedding struct {
	name   string
	prefix netip.Prefix
	inner  func(b [16]byte) netip.Addr
	// always refuses the form whatever it embeds: the deprecated forms
	// have no public use, only a way around the checks.
	always bool
}

func lastFour(b [16]byte) netip.Addr { return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}) }

var ipv4Embeddings = []ipv4Embedding{
	// ::a.b.c.d, deprecated by RFC 4291. :: and ::1 are judged above.
	{name: "IPv4-compatible IPv6", prefix: netip.MustParsePrefix("::/96"), inner: lastFour, always: true},
	// ::ffff:0:a.b.c.d, the stateless translation form of RFC 2765.
	{name: "IPv4-translated IPv6", prefix: netip.MustParsePrefix("::ffff:0:0:0/96"), inner: lastFour, always: true},
	// 64:ff9b::a.b.c.d, NAT64's well-known prefix (RFC 6052).
	{name: "NAT64", prefix: netip.MustParsePrefix("64:ff9b::/96"), inner: lastFour},
	// 2002:aabb:ccdd::/48, 6to4 (RFC 3056): the site's IPv4 address.
	{name: "6to4", prefix: netip.MustParsePrefix("2002::/16"), inner: func(b [16]byte) netip.Addr {
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	}},
	// 2001:0::/32, Teredo (RFC 4380): the client's IPv4 address sits in the
	// last 32 bits, every bit inverted; relays deliver to it.
	{name: "Teredo", prefix: netip.MustParsePrefix("2001::/32"), inner: func(b [16]byte) netip.Addr {
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
	}},
}

// embeddedReason judges the IPv4 address inside the IPv6 forms that carry
// one, so "[::127.0.0.1]" or "[64:ff9b::a9fe:a9fe]" cannot stand in for an
// internal IPv4 address.
func embeddedReason(ip netip.Addr) string {
	if !ip.Is6() {
		return ""
	}
	for _, e := range ipv4Embeddings {
		if !e.prefix.Contains(ip) {
			continue
		}
		inner := e.inner(ip.As16())
		if r := forbiddenReason(inner); r != "" {
			return r + " via " + e.name
		}
		if e.always {
			return e.name
		}
		return ""
	}
	return ""
}

// InternalAddress names why ip is not a public address ("loopback",
// "private", "link-local", ...), or returns "" when it is public: the
// same judgement the fetcher makes before dialling.
func InternalAddress(ip netip.Addr) string { return forbiddenReason(ip) }
