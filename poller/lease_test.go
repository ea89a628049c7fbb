package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// trickler serves a feed a few bytes at a time for longer than a poll's
// lease, and records how many requests it serves at once.
type trickler struct {
	mu       sync.Mutex
	inFlight int
	maxAtall int
	served   int
	stop     chan struct{}
}

func (tr *trickler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tr.mu.Lock()
	tr.inFlight++
	tr.served++
	tr.maxAtall = max(tr.maxAtall, tr.inFlight)
	tr.mu.Unlock()
	defer func() {
		tr.mu.Lock()
		tr.inFlight--
		tr.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/rss+xml")
	fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Slow</title>`)
	// 6 s of whitespace, well past the 2 s lease.
	for range 60 {
		select {
		case <-r.Context().Done():
			return
		case <-tr.stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
		fmt.Fprint(w, " ")
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, `<item><title>Late</title><link>https://news.example.com/late</link><guid>late</guid></item></channel></rss>`)
}

func (tr *trickler) stats() (inFlight, most, served int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.inFlight, tr.maxAtall, tr.served
}

// TestPollNeverOutlivesItsLease: a server trickles its feed for longer
// than the lease. Two daemons tick every second over the same database. A
// source must never be polled twice at once, neither by the daemon whose
// lease ran out nor by the other: the server never sees two requests at
// once, and the source's poll_runs never overlap in time.
func TestPollNeverOutlivesItsLease(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		tr := &trickler{stop: make(chan struct{})}
		srv := httptest.NewServer(tr)
		t.Cleanup(srv.Close)
		t.Cleanup(func() { close(tr.stop) })
		src := &model.FeedSource{WorkspaceID: e.ws.ID, URL: srv.URL + "/slow", SourceType: model.SourceRSS,
			IsActive: true, PollingIntervalMinutes: 30}
		if err := e.store.CreateSource(context.Background(), src); err != nil {
			t.Fatal(err)
		}
		daemon := func(o *poller.Options, f *fetch.Options) {
			o.Lease, o.Schedule, o.Workers = 2*time.Second, "@every 1s", 2
			f.Timeout = 30 * time.Second // the fetcher alone would wait out the whole trickle
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, owner := range []string{"daemon-a", "daemon-b"} {
			p := newPoller(t, e.store, owner, daemon)
			wg.Add(1)
			go func() { defer wg.Done(); _ = p.Run(ctx) }()
		}
		stop := func() { cancel(); wg.Wait() }
		defer stop()

		// Three polls, each made due again as soon as the one before is
		// recorded (a failed poll backs off for an hour).
		const polls = 3
		deadline := time.Now().Add(90 * time.Second)
		for seen := 0; seen < polls; {
			if time.Now().After(deadline) {
				_, most, served := tr.stats()
				t.Fatalf("only %d of %d polls recorded (server served %d, at most %d at once)", seen, polls, served, most)
			}
			if _, most, _ := tr.stats(); most > 1 {
				break // already failed; the checks below say how
			}
			n := e.count("poll_runs")
			if n > seen {
				seen = n
				if seen < polls {
					e.store.DB().MustExec(e.store.DB().Rebind("UPDATE feed_sources SET next_poll_at = ? WHERE id = ?"),
						time.Now().Add(-time.Minute).UTC(), src.ID)
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop()

		if _, most, served := tr.stats(); most > 1 {
			t.Errorf("the server saw %d requests for the source at once (%d in all): a poll outlived its lease and the source was claimed again", most, served)
		}
		var runs []model.PollRun
		if err := e.store.DB().Select(&runs, "SELECT started_at, finished_at, outcome, error FROM poll_runs ORDER BY started_at"); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(runs); i++ {
			if runs[i].StartedAt.Before(*runs[i-1].FinishedAt) {
				t.Errorf("poll_runs overlap: %v–%v and %v–%v", runs[i-1].StartedAt, *runs[i-1].FinishedAt, runs[i].StartedAt, *runs[i].FinishedAt)
			}
		}
		for _, r := range runs {
			if r.Outcome != model.StatusError {
				t.Errorf("run %+v, want a failed poll that names its time limit", r)
			}
		}
		got, _ := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
		if got.ConsecutiveFailures == 0 || got.LastPolledError == "" {
			t.Errorf("source after the polls: %d failures, error %q", got.ConsecutiveFailures, got.LastPolledError)
		}
		t.Logf("last error: %s", got.LastPolledError)
	})
}
