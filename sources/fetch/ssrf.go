package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// blockedAddrError is a dial refused by the address policy.
type blockedAddrError struct {
	addr   netip.Addr
	reason string
}

func (e *blockedAddrError) Error() string {
	return fmt.Sprintf("address %s is not allowed (%s)", e.addr, e.reason)
}

// addrPolicy decides which addresses may be dialled. The decision is made on
// the resolved IP at dial time, never on the host name alone, so a name that
// resolves (or later re-resolves) to an internal address cannot pass.
type addrPolicy struct {
	allowPrivate bool
	allowHosts   map[string]bool
	allowNets    []netip.Prefix
}

// newAddrPolicy builds the policy from the usable Allow entries; the error
// names the entries it had to skip.
func newAddrPolicy(allowPrivate bool, allow []string) (addrPolicy, error) {
	p := addrPolicy{allowPrivate: allowPrivate, allowHosts: map[string]bool{}}
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
func (p addrPolicy) hostAllowed(host string) bool {
	return p.allowPrivate || p.allowHosts[normHost(host)]
}

// check returns nil when ip may be dialled.
func (p addrPolicy) check(ip netip.Addr, hostAllowed bool) error {
	ip = ip.Unmap().WithZone("")
	if hostAllowed || p.allowPrivate {
		return nil
	}
	for _, n := range p.allowNets {
		if n.Contains(ip) {
			return nil
		}
	}
	if reason := forbiddenReason(ip); reason != "" {
		return &blockedAddrError{addr: ip, reason: reason}
	}
	return nil
}

var (
	cgnat         = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork   = netip.MustParsePrefix("0.0.0.0/8")
	ietfProtocol  = netip.MustParsePrefix("192.0.0.0/24")
	benchmarking  = netip.MustParsePrefix("198.18.0.0/15")
	reservedV4    = netip.MustParsePrefix("240.0.0.0/4")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local    = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour     = netip.MustParsePrefix("2002::/16")
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
	case cgnat.Contains(ip):
		return "carrier-grade NAT"
	case ietfProtocol.Contains(ip), benchmarking.Contains(ip), reservedV4.Contains(ip), nat64Local.Contains(ip):
		return "reserved"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	// IPv6 forms that carry an IPv4 address inside: judge the inner one.
	if nat64.Contains(ip) {
		b := ip.As16()
		return forbiddenReason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	if sixToFour.Contains(ip) {
		b := ip.As16()
		return forbiddenReason(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	return ""
}

// safeDialer resolves names itself, checks every resolved address, and
// dials only addresses it has checked, so no second lookup can swap in an
// internal one (DNS rebinding).
type safeDialer struct {
	policy   addrPolicy
	resolver Resolver
	timeout  time.Duration
}

func (d *safeDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	hostOK := d.policy.hostAllowed(host)

	var ips []netip.Addr
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		ips = []netip.Addr{ip}
	} else {
		addrs, err := d.resolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		for _, a := range addrs {
			if ip, ok := netip.AddrFromSlice(a.IP); ok {
				ips = append(ips, ip.Unmap())
			}
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("resolve %s: no addresses", host)
		}
	}
	// Refuse the whole name when any answer is internal: a mixed answer is
	// a rebinding attempt, not a reason to pick the public one.
	for _, ip := range ips {
		if err := d.policy.check(ip, hostOK); err != nil {
			return nil, err
		}
	}

	dialer := &net.Dialer{
		Timeout:   d.timeout,
		KeepAlive: 30 * time.Second,
		// Second line of defence: the socket's own peer address is checked
		// once more just before connect.
		Control: func(_, addr string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return fmt.Errorf("dial %s: %w", addr, err)
			}
			return d.policy.check(ap.Addr(), hostOK)
		},
	}
	var firstErr error
	for _, ip := range ips {
		conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
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
