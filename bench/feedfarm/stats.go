package feedfarm

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"
)

// Stats is a snapshot of what the farm has served since it started or was
// last reset.
type Stats struct {
	// Since is when counting started: New, or the last Reset.
	Since time.Time `json:"since"`
	// FeedRequests counts requests for existing feeds; OK and NotModified
	// split those that were answered (a request whose client left during the
	// configured latency is in neither).
	FeedRequests int64 `json:"feed_requests"`
	OK           int64 `json:"ok"`
	NotModified  int64 `json:"not_modified"`
	// ItemRequests counts article page requests answered.
	ItemRequests int64 `json:"item_requests"`
	// NotFound counts requests for feeds or items that do not exist.
	NotFound int64 `json:"not_found"`
	// Feeds holds one entry per feed, in feed order.
	Feeds []FeedStats `json:"feeds,omitempty"`
}

// FeedStats is what the farm knows about requests for one feed.
type FeedStats struct {
	Feed     int    `json:"feed"`
	Format   string `json:"format"`
	Changing bool   `json:"changing"`
	// Version is how many new items the feed has gained (not reset by Reset).
	Version     uint64 `json:"version"`
	Requests    int64  `json:"requests"`
	OK          int64  `json:"ok"`
	NotModified int64  `json:"not_modified"`
	// First and Last are the first and latest request times (zero: none).
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// Times are the most recent request times, oldest first, at most
	// Options.KeepTimes of them; TimesDropped counts older ones overwritten.
	Times        []time.Time `json:"times,omitempty"`
	TimesDropped int64       `json:"times_dropped,omitempty"`
}

// Stats returns a snapshot of the counters. Each feed is read consistently;
// the totals are the sums of what was read.
func (f *Farm) Stats() Stats {
	return f.stats(true, true)
}

func (f *Farm) stats(perFeed, withTimes bool) Stats {
	f.sinceMu.Lock()
	s := Stats{Since: f.since}
	f.sinceMu.Unlock()
	s.ItemRequests = f.items.Load()
	s.NotFound = f.notFound.Load()
	if perFeed {
		s.Feeds = make([]FeedStats, len(f.feeds))
	}
	for n := range f.feeds {
		fs := f.feedStats(n, perFeed && withTimes)
		s.FeedRequests += fs.Requests
		s.OK += fs.OK
		s.NotModified += fs.NotModified
		if perFeed {
			s.Feeds[n] = fs
		}
	}
	return s
}

func (f *Farm) feedStats(n int, withTimes bool) FeedStats {
	st := &f.feeds[n]
	st.mu.Lock()
	defer st.mu.Unlock()
	fs := FeedStats{
		Feed:         n,
		Format:       f.FormatOf(n).String(),
		Changing:     st.changing,
		Version:      st.version,
		Requests:     st.requests,
		OK:           st.ok,
		NotModified:  st.notModified,
		TimesDropped: st.dropped,
	}
	if st.first != 0 {
		fs.First = time.Unix(0, st.first)
		fs.Last = time.Unix(0, st.last)
	}
	if withTimes && len(st.times) > 0 {
		fs.Times = make([]time.Time, 0, len(st.times))
		// The ring's oldest entry sits at timesNext once it has wrapped.
		for i := range st.times {
			fs.Times = append(fs.Times, time.Unix(0, st.times[(st.timesNext+i)%len(st.times)]))
		}
	}
	return fs
}

// Reset zeroes every counter and forgets request times. Feed versions are
// content, not counters: they carry on.
func (f *Farm) Reset() {
	for n := range f.feeds {
		st := &f.feeds[n]
		st.mu.Lock()
		st.requests, st.ok, st.notModified = 0, 0, 0
		st.first, st.last = 0, 0
		st.times = st.times[:0]
		st.timesNext, st.dropped = 0, 0
		st.mu.Unlock()
	}
	f.items.Store(0)
	f.notFound.Store(0)
	f.sinceMu.Lock()
	f.since = time.Now()
	f.sinceMu.Unlock()
}

// serveStats answers GET /_stats; ?feeds=0 leaves out the per-feed list and
// ?times=0 the request times in it, which for a large farm are most of the
// bytes.
func (f *Farm) serveStats(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s := f.stats(q.Get("feeds") != "0", q.Get("times") != "0")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(s); err != nil {
		slog.DebugContext(r.Context(), "feedfarm: write stats", "err", err)
	}
}

// serveReset answers POST /_stats/reset.
func (f *Farm) serveReset(w http.ResponseWriter, r *http.Request) {
	f.Reset()
	w.WriteHeader(http.StatusNoContent)
}
