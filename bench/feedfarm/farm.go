package feedfarm

import (
	"bytes"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Farm serves the synthetic feeds. It is safe for concurrent use; its memory
// grows with the number of feeds, never with items or bodies.
type Farm struct {
	opts  Options
	seed  uint64
	feeds []feedState
	bufs  sync.Pool

	// events and lnEvents (ln(events + 1)) size the news model's slots.
	events   int
	lnEvents float64

	items    atomic.Int64 // article page requests answered 200 or 304
	advance  atomic.Int64 // new items a changing feed gains per request
	notFound atomic.Int64 // requests for feeds or items that do not exist

	sinceMu sync.Mutex
	since   time.Time
}

// feedState is everything the farm remembers about one feed.
type feedState struct {
	mu       sync.Mutex
	changing bool
	seen     bool   // requested at least once: the next request may advance
	version  uint64 // new items added since the farm started

	requests    int64
	ok          int64
	notModified int64
	first, last int64   // unix nanoseconds, 0 when never requested
	times       []int64 // ring of the most recent request times
	timesNext   int
	dropped     int64
}

// New builds a farm. Out-of-range options take their defaults (see Options).
func New(opts Options) *Farm {
	opts = opts.withDefaults()
	f := &Farm{
		opts:  opts,
		seed:  uint64(opts.Seed),
		feeds: make([]feedState, opts.Feeds),
		since: time.Now(),
	}
	f.bufs.New = func() any { return new(bytes.Buffer) }
	f.events = eventsPerSlot(opts)
	f.lnEvents = math.Log(float64(f.events) + 1)
	f.advance.Store(1)
	f.pickChanging()
	return f
}

// pickChanging marks exactly round(ChangeShare × Feeds) feeds as changing,
// chosen by a seeded ranking so that the set is reproducible and spread over
// the whole range of feed numbers.
func (f *Farm) pickChanging() {
	want := int(math.Round(f.opts.ChangeShare * float64(f.opts.Feeds)))
	if want == 0 {
		return
	}
	type ranked struct {
		score uint64
		n     int
	}
	all := make([]ranked, f.opts.Feeds)
	for n := range all {
		all[n] = ranked{score: hash4(f.seed, uint64(n), saltChange, 0), n: n}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		switch {
		case a.score < b.score:
			return -1
		case a.score > b.score:
			return 1
		}
		return a.n - b.n
	})
	for _, r := range all[:want] {
		f.feeds[r.n].changing = true
	}
}

// Options returns the options in effect, defaults filled in.
func (f *Farm) Options() Options { return f.opts }

// Changing reports whether feed n is one of the feeds that change between
// polls, so a benchmark knows how many 200s and 304s to expect.
func (f *Farm) Changing(n int) bool {
	return n >= 0 && n < len(f.feeds) && f.feeds[n].changing
}

// FormatOf reports the format feed n is served in.
func (f *Farm) FormatOf(n int) Format {
	switch f.opts.Format {
	case FormatRSS, FormatAtom:
		return f.opts.Format
	}
	if n%2 == 0 {
		return FormatRSS
	}
	return FormatAtom
}

// Handler returns the farm's HTTP handler:
//
//	GET  /feed/{n}.xml    feed n, conditional GET supported
//	GET  /item/{n}/{k}    the HTML article page of item k of feed n
//	GET  /_feeds          the URL of every feed, one a line
//	GET  /_stats          Stats as JSON (?feeds=0: totals only; ?times=0: no request times)
//	POST /_stats/reset    zero the counters and request times
func (f *Farm) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /feed/{file}", f.serveFeed)
	mux.HandleFunc("GET /item/{feed}/{k}", f.serveItem)
	mux.HandleFunc("GET /_feeds", f.serveFeedList)
	mux.HandleFunc("GET /_stats", f.serveStats)
	mux.HandleFunc("POST /_stats/reset", f.serveReset)
	return mux
}

// SetNewItems sets how many new items a changing feed gains on each
// request after its first (1 when the farm starts; ItemsPerFeed or more:
// every item it shows is new), so a benchmark can make the next poll find
// a few new items or a whole new feed. k < 1 is taken as 1.
func (f *Farm) SetNewItems(k int) { f.advance.Store(int64(max(k, 1))) }

// visit records one request of feed n at now and returns the version to
// serve: a changing feed advances on every request after its first.
func (f *Farm) visit(n int, now time.Time) uint64 {
	st := &f.feeds[n]
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.changing && st.seen {
		st.version += uint64(f.advance.Load())
	}
	st.seen = true
	st.requests++
	ns := now.UnixNano()
	if st.first == 0 {
		st.first = ns
	}
	st.last = ns
	if keep := f.opts.KeepTimes; keep > 0 {
		if len(st.times) < keep {
			st.times = append(st.times, ns)
		} else {
			st.times[st.timesNext] = ns
			st.timesNext = (st.timesNext + 1) % keep
			st.dropped++
		}
	}
	return st.version
}

// answered counts the outcome of a feed request.
func (f *Farm) answered(n int, status int) {
	st := &f.feeds[n]
	st.mu.Lock()
	defer st.mu.Unlock()
	switch status {
	case http.StatusOK:
		st.ok++
	case http.StatusNotModified:
		st.notModified++
	}
}

// currentVersion reads feed n's version without counting a request.
func (f *Farm) currentVersion(n int) uint64 {
	st := &f.feeds[n]
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.version
}

// topItem is the number of the newest item feed n shows at version v; it
// shows items topItem down to topItem-ItemsPerFeed+1.
func (f *Farm) topItem(v uint64) int {
	return int(v) + f.opts.ItemsPerFeed - 1
}

func (f *Farm) getBuf() *bytes.Buffer {
	b := f.bufs.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func (f *Farm) putBuf(b *bytes.Buffer) {
	// Very large buffers would pin memory after an unusual request.
	if b.Cap() <= 4<<20 {
		f.bufs.Put(b)
	}
}
