package api_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// countingFeeds serves one small feed on every path and counts requests
// per path and query.
type countingFeeds struct {
	mu   sync.Mutex
	hits map[string]int
}

func (c *countingFeeds) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.hits[r.URL.RequestURI()]++
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/rss+xml")
	io.WriteString(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Counted</title>
<item><title>One</title><link>http://example.test/1</link><guid>1</guid></item></channel></rss>`)
}

func (c *countingFeeds) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.hits {
		n += v
	}
	return n
}

// TestDuplicateSourceURLWrittenAnotherWay: a feed already in the workspace
// cannot be added again by writing its URL another way (scheme or host
// case, a fragment, an empty query, a dot segment, a default port), and
// the 409 comes before the validation fetch, so the site sees no request.
// A different query is a different feed.
func TestDuplicateSourceURLWrittenAnotherWay(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		feeds := &countingFeeds{hits: map[string]int{}}
		srv := httptest.NewServer(feeds)
		t.Cleanup(srv.Close)
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		base := "http://localhost:" + port
		ws := e.createWorkspace(t, "dups")

		first := e.createSource(t, ws.ID, map[string]any{"url": base + "/feed"})
		if first.URL != base+"/feed" {
			t.Fatalf("stored url %q", first.URL)
		}
		// A source stored before URLs were stored normalised.
		e.store.DB().MustExec(e.store.DB().Rebind(`INSERT INTO feed_sources (workspace_id, url, source_type, title, is_active,
			polling_interval_minutes, next_poll_at, created_at, updated_at) VALUES (?, ?, 'rss', 'old', ?, 30, ?, ?, ?)`),
			ws.ID, "HTTP://LOCALHOST:"+port+"/Legacy#top", true, first.NextPollAt, first.NextPollAt, first.NextPollAt)
		fetched := feeds.total()

		for _, dup := range []string{
			"HTTP://LocalHost:" + port + "/feed",
			base + "/feed#latest",
			base + "/feed?",
			base + "/./feed",
			base + "/%66eed", // an escaped unreserved character
			"http://localhost:" + port + "/Legacy",
		} {
			t.Run(dup, func(t *testing.T) {
				before := e.countRows(t, "feed_sources")
				r := e.do("POST", path("/%d/sources", ws.ID), e.admin, map[string]any{"url": dup}).want(t, http.StatusConflict)
				if eb := r.errBody(t); eb.Fields["url"] == "" || !strings.Contains(eb.Error, "already has") {
					t.Errorf("409 does not explain: %+v", eb)
				}
				if e.countRows(t, "feed_sources") != before {
					t.Error("the duplicate was stored")
				}
				if n := feeds.total(); n != fetched {
					t.Errorf("the feed server saw %d request(s) for a duplicate; want none before the 409", n-fetched)
				}
			})
		}

		// Another query is another feed; tracking-looking parameters too.
		for i, other := range []string{base + "/feed?format=atom", base + "/feed?utm_source=partner"} {
			src := e.createSource(t, ws.ID, map[string]any{"url": other})
			if src.URL != other {
				t.Errorf("stored %q, want %q", src.URL, other)
			}
			if n := feeds.total(); n != fetched+i+1 {
				t.Errorf("%d validation fetches for a new feed, want 1", n-fetched-i)
			}
		}
		// And the duplicate of one of those conflicts too.
		e.do("POST", path("/%d/sources", ws.ID), e.admin, map[string]any{"url": base + "/feed?format=atom#x"}).want(t, http.StatusConflict)
	})
}
