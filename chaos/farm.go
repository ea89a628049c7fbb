package chaos

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Farm is a feed server whose contents and timing a test controls: every
// feed carries the same number of items (SetItems), answers can be held
// until released (Hold, Release) or slowed down (SetDelay), and requests
// are counted per path. Status endpoints answer a chosen status with an
// optional Retry-After.
//
// Routes:
//
//	/feed/{n}            RSS feed n with Items() items, no validators
//	/status/{code}       that status; ?ra=SECONDS or ?ra_date=UNIX sets Retry-After
type Farm struct {
	srv *httptest.Server

	mu      sync.Mutex
	items   int
	delay   time.Duration
	gate    chan struct{} // nil: open
	waiting int           // requests held at the gate
	active  int           // feed requests being answered
	hits    map[string]int
}

// FarmWords is how many words each item's content carries: above the
// poller's default MinWords, so the item's own HTML is enough and no article
// page is fetched.
const FarmWords = 80

// NewFarm starts a Farm on 127.0.0.1 serving one item per feed.
func NewFarm() *Farm {
	f := &Farm{items: 1, hits: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /feed/{n}", f.serveFeed)
	mux.HandleFunc("GET /status/{code}", f.serveStatus)
	f.srv = httptest.NewServer(mux)
	return f
}

// URL is the farm's base URL, http://127.0.0.1:PORT.
func (f *Farm) URL() string { return f.srv.URL }

// Addr is the farm's host:port, for an Alias.
func (f *Farm) Addr() string { return strings.TrimPrefix(f.srv.URL, "http://") }

// FeedPath is the path of feed n.
func FeedPath(n int) string { return "/feed/" + strconv.Itoa(n) }

// Close releases held requests and stops the server.
func (f *Farm) Close() {
	f.Release()
	f.srv.CloseClientConnections()
	f.srv.Close()
}

// SetItems sets how many items every feed carries from now on. Items are
// numbered from 0, so a feed that grows keeps its old items.
func (f *Farm) SetItems(n int) {
	f.mu.Lock()
	f.items = n
	f.mu.Unlock()
}

// SetDelay makes every feed answer wait d first.
func (f *Farm) SetDelay(d time.Duration) {
	f.mu.Lock()
	f.delay = d
	f.mu.Unlock()
}

// Hold makes feed requests wait, from now on, until Release.
func (f *Farm) Hold() {
	f.mu.Lock()
	if f.gate == nil {
		f.gate = make(chan struct{})
	}
	f.mu.Unlock()
}

// Release lets held feed requests go on and stops holding new ones.
func (f *Farm) Release() {
	f.mu.Lock()
	if f.gate != nil {
		close(f.gate)
		f.gate = nil
	}
	f.mu.Unlock()
}

// Waiting is how many feed requests are held at the gate right now.
func (f *Farm) Waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}

// Active is how many feed requests are being answered right now (held,
// delayed or writing).
func (f *Farm) Active() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.active
}

// Hits is how many requests reached a path, such as FeedPath(3) or
// "/status/404".
func (f *Farm) Hits(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[path]
}

func (f *Farm) serveFeed(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.hits[r.URL.Path]++
	f.active++
	items, delay, gate := f.items, f.delay, f.gate
	if gate != nil {
		f.waiting++
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.active--
		f.mu.Unlock()
	}()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
		}
		f.mu.Lock()
		f.waiting--
		items = f.items // what the feed carries when it is let go
		f.mu.Unlock()
		if r.Context().Err() != nil {
			return
		}
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	_, _ = w.Write([]byte(farmFeed(f.srv.URL, n, items)))
}

// farmFeed is feed n with items 0..items-1, newest first, each with its own
// content so that no two items share a content hash.
func farmFeed(base string, n, items int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
<title>Farm feed %d</title><link>%s/feed/%d</link><description>Feed %d of the chaos farm</description>
`, n, base, n, n)
	epoch := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for k := items - 1; k >= 0; k-- {
		fmt.Fprintf(&b, `<item><title>Farm feed %d item %d</title><link>%s/feed/%d/item/%d</link><guid>farm-%d-%d</guid>
<pubDate>%s</pubDate><content:encoded><![CDATA[<p>`, n, k, base, n, k, n, k, epoch.Add(time.Duration(k)*time.Minute).Format(time.RFC1123Z))
		for w := 0; w < FarmWords; w++ {
			fmt.Fprintf(&b, "word%d_%d_%d ", n, k, w%7)
		}
		b.WriteString("</p>]]></content:encoded></item>\n")
	}
	b.WriteString("</channel></rss>\n")
	return b.String()
}

func (f *Farm) serveStatus(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.hits[r.URL.Path]++
	f.mu.Unlock()
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 200 || code > 599 {
		http.NotFound(w, r)
		return
	}
	if ra := r.URL.Query().Get("ra"); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	if unix := r.URL.Query().Get("ra_date"); unix != "" {
		if s, err := strconv.ParseInt(unix, 10, 64); err == nil {
			w.Header().Set("Retry-After", time.Unix(s, 0).UTC().Format(http.TimeFormat))
		}
	}
	http.Error(w, http.StatusText(code), code)
}
