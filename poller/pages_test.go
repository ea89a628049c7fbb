package poller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/rss"
)

// breakerEnv is a poller wired as the daemon wires it, with the fetcher's
// circuit breaker switched on (3 failures open it), one worker so the
// order of polls is fixed, and feeds whose items are too short for the
// first cascade tier, so every item's article page is fetched.
func breakerEnv(t *testing.T, feeds int, pageStatus int) (*env, []*model.FeedSource) {
	t.Helper()
	e := newEnv(t, "sqlite", model.RelevanceProfile{})
	client := fetch.New(fetch.Options{AllowPrivateNetworks: true, Attempts: 1, PerDomainGap: -1,
		PerDomainConcurrency: 64, BreakerFailures: 3, Timeout: 5 * time.Second})
	t.Cleanup(client.CloseIdleConnections)
	opts := testOptions(e.store, "breaker-test")
	opts.Workers, opts.BatchSize = 1, 100
	opts.Fetchers = map[string]poller.Fetcher{model.SourceRSS: &rss.Fetcher{Client: client}}
	opts.Pipeline.Pages = client
	p, err := poller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.poller = p
	var srcs []*model.FeedSource
	for i := range feeds {
		var entries []entry
		for j := range 3 {
			page := fmt.Sprintf("/article/%d-%d", i, j)
			if pageStatus != 404 {
				e.feeds.fail(page, pageStatus)
			}
			entries = append(entries, entry{guid: page, link: e.feeds.URL + page, title: fmt.Sprintf("Story %d-%d", i, j),
				html: "<p>Too short to keep.</p>"})
		}
		path := fmt.Sprintf("/feed/%d.xml", i)
		e.feeds.set(path, rssDoc(fmt.Sprintf("Feed %d", i), entries...))
		srcs = append(srcs, e.addSource(path))
	}
	return e, srcs
}

func (e *env) pollDue(t *testing.T) []model.PollOutcome {
	t.Helper()
	var outs []model.PollOutcome
	if err := e.poller.PollDue(context.Background(), func(o model.PollOutcome, err error) {
		if err != nil {
			t.Errorf("poll of source %d not recorded: %v", o.SourceID, err)
		}
		outs = append(outs, o)
	}); err != nil {
		t.Fatal(err)
	}
	return outs
}

func (e *env) pageHits(feeds int) int {
	n := 0
	for i := range feeds {
		for j := range 3 {
			n += e.feeds.count(fmt.Sprintf("/article/%d-%d", i, j))
		}
	}
	return n
}

// TestArticlePageFailuresNeverDeferFeeds: many feeds on one host whose
// items link to pages that fail. The feeds are still polled, every one:
// a 404 of an article page says nothing about the host, and even failures
// that do (5xx) only spare the host more page fetches.
func TestArticlePageFailuresNeverDeferFeeds(t *testing.T) {
	const feeds = 8
	cases := []struct {
		pageStatus int
		pageHits   int // article page requests that reached the host
	}{
		// Every page is tried: a 404 never counts against the host.
		{pageStatus: 404, pageHits: feeds * 3},
		// The article pages' own circuit opens after three failures.
		{pageStatus: 503, pageHits: 3},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.pageStatus), func(t *testing.T) {
			e, srcs := breakerEnv(t, feeds, tc.pageStatus)
			outs := e.pollDue(t)
			if len(outs) != feeds {
				t.Fatalf("%d polls, want %d", len(outs), feeds)
			}
			for _, o := range outs {
				if o.Status != model.StatusOK || o.ItemsNew != 3 {
					t.Errorf("source %d: status %q new %d error %q, want ok with 3 new articles", o.SourceID, o.Status, o.ItemsNew, o.Error)
				}
			}
			for i := range srcs {
				if n := e.feeds.count(fmt.Sprintf("/feed/%d.xml", i)); n != 1 {
					t.Errorf("feed %d fetched %d times, want 1", i, n)
				}
			}
			if n := e.pageHits(feeds); n != tc.pageHits {
				t.Errorf("%d article page requests reached the host, want %d", n, tc.pageHits)
			}
		})
	}
}

// TestFeedFailuresStillOpenTheBreaker: a host whose feeds answer 5xx is
// left alone for a while: after three failures the next feeds on it are
// deferred without a request.
func TestFeedFailuresStillOpenTheBreaker(t *testing.T) {
	const feeds = 5
	e, _ := breakerEnv(t, feeds, 404)
	for i := range feeds {
		e.feeds.fail(fmt.Sprintf("/feed/%d.xml", i), 503)
	}
	var failed, deferred int
	for _, o := range e.pollDue(t) {
		switch o.Status {
		case model.StatusError:
			failed++
		case model.StatusDeferred:
			deferred++
		}
	}
	if failed != 3 || deferred != feeds-3 {
		t.Fatalf("%d failed and %d deferred, want 3 and %d", failed, deferred, feeds-3)
	}
	hits := 0
	for i := range feeds {
		hits += e.feeds.count(fmt.Sprintf("/feed/%d.xml", i))
	}
	if hits != 3 {
		t.Errorf("%d feed requests reached the failing host, want 3", hits)
	}
}
