package fetch

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"

	"github.com/feedpoller/feedpoller/sources"
)

// allowHint tells the operator how to open a refused host.
const allowHint = "set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"

// blockedError is a host the address policy refused. Its message names
// the host, never the address it resolved to: the message reaches API
// callers (validation errors, a source's last error), and what an internal
// name resolves to is the operator's business. The address is logged.
type blockedError struct {
	host   string
	reason string
}

func (e *blockedError) Error() string {
	host := e.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("host %s is not allowed (%s); %s", host, e.reason, allowHint)
}

// Policy is the address policy of every outbound request: the native
// fetcher dials only addresses it passes, and services that fetch for us
// (Firecrawl) get only URLs it passes. A host is judged on every address
// it resolves to, not on its name, so a name that points inward cannot
// pass. It is safe for concurrent use.
type Policy struct {
	rules    addrRules
	resolver Resolver
	log      *slog.Logger
}

// NewPolicy builds the policy from the options' AllowPrivateNetworks,
// Allow, Resolver and Logger. Unusable Allow entries are skipped and named
// in the error; the policy is usable either way.
func NewPolicy(opts Options) (*Policy, error) {
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	rules, err := newAddrRules(opts.AllowPrivateNetworks, opts.Allow)
	return &Policy{rules: rules, resolver: opts.Resolver, log: opts.Logger}, err
}

// Resolve returns the addresses host may be reached at: the literal IP or
// every address the name resolves to, when each of them passes the
// policy. One internal answer refuses the whole name: a mixed answer is a
// rebinding attempt, not a reason to pick the public one. Both the native
// fetcher's dialer and CheckURL decide through it.
func (p *Policy) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	host = strings.Trim(host, "[]")
	hostOK := p.rules.hostAllowed(host)
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip.Unmap()}
	} else {
		addrs, err := p.resolver.LookupIPAddr(ctx, host)
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
	for _, ip := range ips {
		if err := p.check(host, ip, hostOK); err != nil {
			return nil, err
		}
	}
	return ips, nil
}

// check judges one address of host; the refusal is logged with the
// address, which the returned error leaves out.
func (p *Policy) check(host string, ip netip.Addr, hostOK bool) error {
	reason := p.rules.reason(ip, hostOK)
	if reason == "" {
		return nil
	}
	p.log.Info("fetch: address refused by the address policy", "host", host, "addr", ip.Unmap().WithZone(""), "reason", reason)
	return &blockedError{host: host, reason: reason}
}

// CheckURL decides whether rawURL may be fetched on our behalf by a
// service that does not apply the policy itself (Firecrawl): it must be an
// http(s) URL without credentials whose host passes Resolve. The error is
// a *sources.FetchError worded as the native fetcher words the same
// refusal: a refused host is refused, an unknown name permanent, a DNS
// failure transient.
func (p *Policy) CheckURL(ctx context.Context, rawURL string) error {
	u, fe := checkURL(rawURL, "")
	if fe != nil {
		return fe
	}
	if p.rules.hostAllowed(u.Hostname()) {
		return nil
	}
	if _, err := p.Resolve(ctx, u.Hostname()); err != nil {
		if fe := resolveFailure(err); fe != nil {
			return fe
		}
		if ctx.Err() != nil {
			return &sources.FetchError{Kind: sources.KindTransient, Msg: "canceled", Err: ctx.Err()}
		}
		return &sources.FetchError{Kind: sources.KindTransient, Msg: "address check failed", Err: err}
	}
	return nil
}
