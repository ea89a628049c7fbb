package fetch

import (
	"context"
	"errors"
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

// DialContext connects to address only at the addresses the policy passes
// for its host, checking each socket's peer once more before connect, so a
// name cannot rebind inward between check and dial. Senders that are not
// fetches (webhooks) dial through it; a refusal is told by IsRefused.
func (p *Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return (&safeDialer{policy: p, timeout: DefaultConnectTimeout}).DialContext(ctx, network, address)
}

// IsRefused reports whether err is the policy's refusal of a host.
func IsRefused(err error) bool {
	var be *blockedError
	return errors.As(err, &be)
}
