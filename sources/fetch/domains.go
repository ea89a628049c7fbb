package fetch

import (
	"context"
	"net/netip"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"
)

// domainState is everything the Client remembers about one registrable
// domain. Fields other than sem are guarded by Client.mu.
type domainState struct {
	name string
	// sem holds one token per request in flight to the domain.
	sem chan struct{}
	// refs counts calls using this state; only unreferenced states may be
	// evicted, so a waiter never loses its semaphore.
	refs      int
	lastUsed  time.Time // wall clock, for eviction order
	nextStart time.Time // wall clock, earliest start of the next request

	// scopes keep the breaker and rate-limit memory per Scope, so article
	// pages that fail never defer the sources of the same domain.
	// Politeness (sem, nextStart) is shared: it is about the server's
	// load, whoever asks.
	scopes [scopeCount]scopeState
}

// scope returns the state of one scope; unknown scopes count as sources.
func (ds *domainState) scope(s Scope) *scopeState {
	if s < 0 || s >= scopeCount {
		s = ScopeSource
	}
	return &ds.scopes[s]
}

// domain returns the state for name, creating it (and evicting idle old
// domains when over MaxDomains) as needed. Callers must call putDomain.
func (c *Client) domain(name string) *domainState {
	c.mu.Lock()
	defer c.mu.Unlock()
	ds, ok := c.domains[name]
	if !ok {
		if len(c.domains) >= c.opts.MaxDomains {
			c.evictLocked()
		}
		ds = &domainState{name: name, sem: make(chan struct{}, c.opts.PerDomainConcurrency)}
		c.domains[name] = ds
	}
	ds.refs++
	ds.lastUsed = time.Now()
	return ds
}

func (c *Client) putDomain(ds *domainState) {
	c.mu.Lock()
	ds.refs--
	c.mu.Unlock()
}

// evictLocked forgets the least recently used tenth of the idle domains.
// Forgetting a domain drops its breaker and rate-limit memory, which only
// makes the fetcher forget old trouble, never refuse a request wrongly.
func (c *Client) evictLocked() {
	idle := make([]*domainState, 0, len(c.domains))
	for _, ds := range c.domains {
		if ds.refs == 0 {
			idle = append(idle, ds)
		}
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].lastUsed.Before(idle[j].lastUsed) })
	n := max(1, c.opts.MaxDomains/10)
	for i := 0; i < n && i < len(idle); i++ {
		delete(c.domains, idle[i].name)
	}
}

// acquireSlot waits for a free in-flight slot for the domain and for the
// minimum gap since the previous request start. The returned func frees the
// slot.
func (c *Client) acquireSlot(ctx context.Context, ds *domainState) (func(), error) {
	select {
	case ds.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := func() { <-ds.sem }
	if c.opts.PerDomainGap <= 0 {
		return release, nil
	}
	c.mu.Lock()
	now := time.Now()
	start := ds.nextStart
	if start.Before(now) {
		start = now
	}
	ds.nextStart = start.Add(c.opts.PerDomainGap)
	c.mu.Unlock()

	if wait := time.Until(start); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

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
