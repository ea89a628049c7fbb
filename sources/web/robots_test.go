package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/fakeclock"
	"github.com/feedpoller/feedpoller/sources"
)

func robotsSite(t *testing.T, robots http.HandlerFunc) *site {
	page := serve("text/html", "<html><head><title>P</title></head><body>"+words+"</body></html>")
	routes := map[string]http.HandlerFunc{"/open": page, "/private/doc": page, "/feedpoller-only": page}
	if robots != nil {
		routes["/robots.txt"] = robots
	}
	return newSite(t, routes)
}

func TestRobotsRules(t *testing.T) {
	s := robotsSite(t, serve("text/plain", "User-agent: *\nDisallow: /private/\n\nUser-agent: FeedPoller\nDisallow: /private/\nDisallow: /feedpoller-only\n"))
	p := &Fetcher{Client: nativeFetcher(t), RespectRobots: true}
	cases := []struct {
		path    string
		allowed bool
	}{
		{"/open", true},
		{"/private/doc", false},
		{"/feedpoller-only", false},
	}
	for _, tc := range cases {
		_, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + tc.path})
		if tc.allowed && err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
		if !tc.allowed {
			fe := fetchErr(t, err)
			if fe.Kind != sources.KindPermanent || fe.Msg != "disallowed by robots.txt" {
				t.Errorf("%s: %v", tc.path, err)
			}
			if s.hitCount(tc.path) != 0 {
				t.Errorf("%s was requested despite robots.txt", tc.path)
			}
		}
	}
	if n := s.hitCount("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1 (cached)", n)
	}
}

func TestRobotsIgnoredWhenNotRespected(t *testing.T) {
	s := robotsSite(t, serve("text/plain", "User-agent: *\nDisallow: /\n"))
	p := &Fetcher{Client: nativeFetcher(t)}
	if _, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/private/doc"}); err != nil {
		t.Fatal(err)
	}
	if s.hitCount("/robots.txt") != 0 {
		t.Error("robots.txt fetched although RespectRobots is off")
	}
}

func TestRobotsCacheExpires(t *testing.T) {
	s := robotsSite(t, serve("text/plain", "User-agent: *\nAllow: /\n"))
	clk := fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	p := &Fetcher{Client: nativeFetcher(t), RespectRobots: true, now: clk.Now}
	for i := 0; i < 3; i++ {
		if _, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/open"}); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(robotsTTL + time.Minute)
	if _, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/open"}); err != nil {
		t.Fatal(err)
	}
	if n := s.hitCount("/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2 (once, then after the TTL)", n)
	}
}

func TestRobotsCrawlDelay(t *testing.T) {
	s := robotsSite(t, serve("text/plain", "User-agent: *\nCrawl-delay: 30\n"))
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clk := fakeclock.New(start)
	p := &Fetcher{Client: nativeFetcher(t), RespectRobots: true, now: clk.Now}
	if _, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/open"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Second)
	_, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/private/doc"})
	fe := fetchErr(t, err)
	if fe.Kind != sources.KindDeferred || !fe.RetryAfter.Equal(start.Add(30*time.Second)) {
		t.Fatalf("kind %v retry %v (%v)", fe.Kind, fe.RetryAfter, err)
	}
	if s.hitCount("/private/doc") != 0 {
		t.Error("a deferred poll made a request")
	}
	clk.Advance(21 * time.Second)
	if _, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/private/doc"}); err != nil {
		t.Fatalf("after the delay: %v", err)
	}
}

func TestRobotsFailOpen(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		logs    bool
	}{
		{"missing (404) means no rules", nil, false},
		{"forbidden (403) means no rules", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) }, false},
		{"server error fails open", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) }, true},
		{"unparsable fails open", serve("text/plain", "Disallow /\x00\x01 what\nUser-agent *\n: :\n"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := robotsSite(t, tc.handler)
			log, buf := logBuffer()
			p := &Fetcher{Client: nativeFetcher(t), RespectRobots: true, Log: log}
			if _, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/private/doc"}); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(buf.String(), "robots.txt unobtainable"); tc.logs && !got {
				t.Errorf("no log line; log: %s", buf.String())
			}
		})
	}
}

func TestRobotsCacheIsBounded(t *testing.T) {
	clk := fakeclock.New(time.Now())
	p := &Fetcher{now: clk.Now}
	p.robotsMap = map[string]*robotsEntry{}
	for i := 0; i < maxRobotsHosts+50; i++ {
		p.robotsMu.Lock()
		p.evictRobotsLocked(clk.Now())
		p.robotsMap[fmt.Sprintf("https://host%d.example", i)] = &robotsEntry{expires: clk.Now().Add(time.Duration(i) * time.Second)}
		p.robotsMu.Unlock()
	}
	if n := len(p.robotsMap); n > maxRobotsHosts {
		t.Fatalf("%d hosts cached, bound is %d", n, maxRobotsHosts)
	}
}
