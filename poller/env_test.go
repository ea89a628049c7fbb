package poller_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/logbuf"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/store"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// feedServer serves RSS documents that tests change between polls, with
// ETag support, and counts requests per path.
type feedServer struct {
	*httptest.Server
	mu       sync.Mutex
	feeds    map[string]string // path → body; "" → 500
	status   map[string]int    // path → forced status
	headers  map[string]http.Header
	requests map[string]int
	inFlight map[string]int
	overlap  map[string]bool // a path was requested twice at once
}

func newFeedServer(t *testing.T) *feedServer {
	fs := &feedServer{feeds: map[string]string{}, status: map[string]int{}, requests: map[string]int{},
		inFlight: map[string]int{}, overlap: map[string]bool{}, headers: map[string]http.Header{}}
	fs.Server = httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *feedServer) serve(w http.ResponseWriter, r *http.Request) {
	fs.mu.Lock()
	fs.requests[r.URL.Path]++
	fs.inFlight[r.URL.Path]++
	if fs.inFlight[r.URL.Path] > 1 {
		fs.overlap[r.URL.Path] = true
	}
	body, ok := fs.feeds[r.URL.Path]
	status := fs.status[r.URL.Path]
	for k, vs := range fs.headers[r.URL.Path] {
		w.Header()[k] = vs
	}
	fs.mu.Unlock()
	defer func() {
		fs.mu.Lock()
		fs.inFlight[r.URL.Path]--
		fs.mu.Unlock()
	}()
	time.Sleep(2 * time.Millisecond) // long enough for overlapping polls to meet
	if status != 0 {
		http.Error(w, "forced failure", status)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := md5.Sum([]byte(body))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if strings.HasPrefix(body, "<html") {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/rss+xml")
	}
	fmt.Fprint(w, body)
}

// named is the address of path under siteHost, a public-looking name the
// test pollers resolve to the loopback server: article links and canonical
// URLs on an IP literal would be internal hosts.
func (fs *feedServer) named(path string) string {
	return "http://" + siteHost + ":" + fs.URL[strings.LastIndex(fs.URL, ":")+1:] + path
}

func (fs *feedServer) set(path, body string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.feeds[path] = body
}

func (fs *feedServer) fail(path string, status int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.status[path] = status
}

// header sets a response header of every answer for path (h "" removes
// it).
func (fs *feedServer) header(path, key, value string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	h := fs.headers[path]
	if h == nil {
		h = http.Header{}
		fs.headers[path] = h
	}
	if value == "" {
		h.Del(key)
		return
	}
	h.Set(key, value)
}

func (fs *feedServer) count(path string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.requests[path]
}

// entry is one RSS item of a test feed.
type entry struct {
	guid, link, title, html string
}

func rssDoc(title string, entries ...entry) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>`)
	fmt.Fprintf(&b, "<title>%s</title><link>https://news.example/</link>", title)
	for _, e := range entries {
		fmt.Fprintf(&b, "<item><title>%s</title><link>%s</link><guid>%s</guid><description>%s summary</description>"+
			"<content:encoded><![CDATA[%s]]></content:encoded></item>", e.title, e.link, e.guid, e.title, e.html)
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

// body makes an article body long enough for the first cascade tier.
func body(topic string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<h2>About %s</h2>", topic)
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d explains %s in some detail, with enough words to count as a real article body for the cascade.</p>", i, topic)
	}
	return b.String()
}

// env is one test's database, poller and feed server.
type env struct {
	t      *testing.T
	store  *store.Store
	poller *poller.Poller
	feeds  *feedServer
	ws     *model.Workspace
}

func newEnv(t *testing.T, dialect string, profile model.RelevanceProfile) *env {
	t.Helper()
	ctx := context.Background()
	st := testdb.Store(t, dialect)
	ws, err := st.CreateWorkspace(ctx, "newsroom", profile)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, store: st, poller: newPoller(t, st, "test-owner"), feeds: newFeedServer(t), ws: ws}
}

// newPoller builds a poller over st with the RSS fetcher and article
// pages; each change adjusts its options (and may replace the client's).
func newPoller(t *testing.T, st *store.Store, owner string, changes ...func(*poller.Options, *fetch.Options)) *poller.Poller {
	t.Helper()
	fo := fetch.Options{AllowPrivateNetworks: true, Attempts: 1, PerDomainGap: -1,
		PerDomainConcurrency: 64, BreakerFailures: 1 << 20, Timeout: 5 * time.Second, Resolver: loopback{}}
	po := testOptions(st, owner)
	po.Workers, po.BatchSize = 4, 7
	for _, c := range changes {
		c(&po, &fo)
	}
	client := fetch.New(fo)
	t.Cleanup(client.CloseIdleConnections)
	po.Fetchers = map[string]poller.Fetcher{model.SourceRSS: &rss.Fetcher{Client: client, Unchanged: rss.NewUnchanged()}}
	po.Pipeline.Pages = client
	p, err := poller.New(po)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testOptions are the defaults with st, owner and no jitter, so that next
// polls are exact.
func testOptions(st poller.Store, owner string) poller.Options {
	o := poller.DefaultOptions()
	o.Store, o.Owner, o.Jitter = st, owner, -1
	return o
}

// logTo sends a poller's log, debug lines included, to buf.
func logTo(buf *syncBuffer) func(*poller.Options, *fetch.Options) {
	return func(o *poller.Options, _ *fetch.Options) {
		o.Log = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
}

// syncBuffer collects log output written from several goroutines.
type syncBuffer = logbuf.Buffer

func (e *env) addSource(path string) *model.FeedSource {
	e.t.Helper()
	src := &model.FeedSource{WorkspaceID: e.ws.ID, URL: e.feeds.URL + path, SourceType: model.SourceRSS,
		IsActive: true, PollingIntervalMinutes: 30}
	if err := e.store.CreateSource(context.Background(), src); err != nil {
		e.t.Fatal(err)
	}
	return src
}

// pollNow polls one source at once, as `feedpoller poll --source` does.
func (e *env) pollNow(src *model.FeedSource) model.PollOutcome {
	e.t.Helper()
	out, err := e.poller.PollNow(context.Background(), e.ws.ID, src.ID)
	if err != nil {
		e.t.Fatalf("poll source %d: %v", src.ID, err)
	}
	return out
}

func (e *env) count(table string) int {
	e.t.Helper()
	var n int
	if err := e.store.DB().Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func forEachDialect(t *testing.T, f func(t *testing.T, dialect string)) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) { f(t, d) })
	}
}
