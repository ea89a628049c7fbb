package web

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

const (
	// robotsAgent is the product token robots.txt groups are matched on.
	robotsAgent = "feedpoller"
	robotsTTL   = time.Hour
	// robotsRetryTTL is how long an unobtainable robots.txt is not asked
	// for again (we fail open meanwhile).
	robotsRetryTTL = 10 * time.Minute
	maxRobotsHosts = 1024
	// maxCrawlDelay bounds a hostile Crawl-delay.
	maxCrawlDelay = 24 * time.Hour
)

// robotsEntry is one host's robots.txt and our last visit to it.
type robotsEntry struct {
	data      *robotstxt.RobotsData // nil: unobtainable, allow everything
	expires   time.Time
	lastVisit time.Time
}

// checkRobots enforces robots.txt for pageURL: disallowed paths fail
// permanently, and a request sooner than the Crawl-delay after the last one
// to the host is deferred. A robots.txt that cannot be had fails open.
func (p *Fetcher) checkRobots(ctx context.Context, pageURL string) error {
	u, err := url.Parse(pageURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil // the fetch itself reports the bad URL
	}
	origin := u.Scheme + "://" + u.Host
	entry := p.robotsFor(ctx, origin)
	if entry.data == nil {
		p.markVisit(origin)
		return nil
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	group := entry.data.FindGroup(robotsAgent)
	if !entry.data.TestAgent(path, robotsAgent) {
		return &sources.FetchError{Kind: sources.KindPermanent, Msg: "disallowed by robots.txt"}
	}
	delay := min(group.CrawlDelay, maxCrawlDelay)
	now := p.clock()
	p.robotsMu.Lock()
	defer p.robotsMu.Unlock()
	e := p.robotsMap[origin]
	if e == nil {
		return nil
	}
	if delay > 0 && !e.lastVisit.IsZero() && now.Sub(e.lastVisit) < delay {
		next := e.lastVisit.Add(delay)
		return &sources.FetchError{Kind: sources.KindDeferred, RetryAfter: next,
			Msg: fmt.Sprintf("robots.txt asks for %s between requests; next at %s", delay, next.UTC().Format(time.RFC3339))}
	}
	e.lastVisit = now
	return nil
}

func (p *Fetcher) markVisit(origin string) {
	p.robotsMu.Lock()
	defer p.robotsMu.Unlock()
	if e := p.robotsMap[origin]; e != nil {
		e.lastVisit = p.clock()
	}
}

// robotsFor returns the cached robots.txt of origin, fetching it when
// missing or stale. The lock is not held while fetching.
func (p *Fetcher) robotsFor(ctx context.Context, origin string) robotsEntry {
	now := p.clock()
	p.robotsMu.Lock()
	if e := p.robotsMap[origin]; e != nil && now.Before(e.expires) {
		out := *e
		p.robotsMu.Unlock()
		return out
	}
	p.robotsMu.Unlock()

	data, err := p.fetchRobots(ctx, origin)
	ttl := robotsTTL
	if err != nil {
		p.logger().Warn("web: robots.txt unobtainable, allowing", "origin", origin, "err", err)
		ttl = robotsRetryTTL
	}
	if ctx.Err() != nil {
		// Our own cancellation says nothing about the host: do not cache.
		return robotsEntry{data: data}
	}

	p.robotsMu.Lock()
	defer p.robotsMu.Unlock()
	if p.robotsMap == nil {
		p.robotsMap = map[string]*robotsEntry{}
	}
	e := p.robotsMap[origin]
	if e == nil {
		p.evictRobotsLocked(now)
		e = &robotsEntry{}
		p.robotsMap[origin] = e
	}
	e.data, e.expires = data, now.Add(ttl)
	return *e
}

// fetchRobots gets and parses origin's robots.txt. Any 4xx means there are
// no rules (RFC 9309 §2.3.1.3); other failures are errors, which callers
// treat as "allow" (nil data).
func (p *Fetcher) fetchRobots(ctx context.Context, origin string) (*robotstxt.RobotsData, error) {
	if p.Client == nil {
		return nil, errors.New("no native fetcher to read robots.txt with")
	}
	resp, err := p.Client.Get(ctx, fetch.Request{URL: origin + "/robots.txt", Accept: "text/plain,*/*;q=0.1"})
	if err != nil {
		var fe *sources.FetchError
		if errors.As(err, &fe) && fe.Status >= 400 && fe.Status < 500 {
			return robotstxt.FromStatusAndBytes(fe.Status, nil)
		}
		return nil, err
	}
	data, err := robotstxt.FromStatusAndBytes(resp.Status, resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse %s/robots.txt: %w", origin, err)
	}
	return data, nil
}

// evictRobotsLocked makes room for one more host: expired entries go
// first, then the one that expires soonest.
func (p *Fetcher) evictRobotsLocked(now time.Time) {
	if len(p.robotsMap) < maxRobotsHosts {
		return
	}
	var oldest string
	for k, e := range p.robotsMap {
		if now.After(e.expires) {
			delete(p.robotsMap, k)
			continue
		}
		if oldest == "" || e.expires.Before(p.robotsMap[oldest].expires) {
			oldest = k
		}
	}
	if len(p.robotsMap) >= maxRobotsHosts && oldest != "" {
		delete(p.robotsMap, oldest)
	}
}
