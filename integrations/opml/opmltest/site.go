// Package opmltest helps test OPML import end to end without the
// internet: a loopback site that serves the feeds and pages a
// subscription list names, once its URLs are pointed at the site.
package opmltest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Site serves, on one loopback address, an RSS feed at every path marked
// as a feed and an HTML page at every other path, and counts requests
// and how many it had in flight at once.
type Site struct {
	*httptest.Server
	// Delay is how long each answer waits (set before requests arrive).
	Delay time.Duration

	mu       sync.Mutex
	feeds    map[string]bool
	inFlight int
	maxIn    int
	requests atomic.Int64
}

// NewSite starts a Site on addr ("" for 127.0.0.1 on a free port); it is
// closed when the test ends. A test that cannot listen on addr (another
// loopback address) is skipped.
func NewSite(t testing.TB, addr string) *Site {
	t.Helper()
	s := &Site{feeds: map[string]bool{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", addr, err)
		}
		_ = s.Listener.Close() // replaced before it served anything
		s.Listener = l
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// AddFeed marks path as a feed.
func (s *Site) AddFeed(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.feeds[path] = true
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.mu.Lock()
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	feed := s.feeds[r.URL.Path]
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
	time.Sleep(s.Delay)
	if feed {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed at %s</title><link>http://%s/</link>
<item><title>One</title><link>http://%s%s/one</link><guid>%s-1</guid></item></channel></rss>`, r.URL.Path, r.Host, r.Host, r.URL.Path, r.URL.Path)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html><head><title>Page at %s</title></head><body><p>Words on the page.</p></body></html>`, r.URL.Path)
}

// Requests counts every request so far.
func (s *Site) Requests() int64 { return s.requests.Load() }

// InFlight is the number of requests being answered now.
func (s *Site) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// MaxInFlight is the most requests the site answered at once.
func (s *Site) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxIn
}

var urlAttr = regexp.MustCompile(`(?i)\b(xmlUrl|htmlUrl|url)="https?://([^/"]+)([^"]*)"`)

// PointAt rewrites every http(s) URL of an OPML document to the site,
// the original host (lower-cased) becoming the first path segment, and
// marks the feed URLs as feeds. Other schemes are left as written.
func (s *Site) PointAt(doc string) string {
	return urlAttr.ReplaceAllStringFunc(doc, func(m string) string {
		p := urlAttr.FindStringSubmatch(m)
		rest := "/" + strings.ToLower(p[2]) + p[3]
		if strings.EqualFold(p[1], "xmlUrl") {
			path, _, _ := strings.Cut(rest, "#")
			path, _, _ = strings.Cut(path, "?")
			s.AddFeed(path)
		}
		return p[1] + `="` + s.URL + rest + `"`
	})
}
