package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// safeDialer dials only addresses the policy resolved and passed, so no
// second lookup can swap in an internal one (DNS rebinding).
type safeDialer struct {
	policy  *Policy
	timeout time.Duration
}

func (d *safeDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	ips, err := d.policy.Resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	hostOK := d.policy.rules.hostAllowed(host)
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
			return d.policy.check(host, ap.Addr(), hostOK)
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
