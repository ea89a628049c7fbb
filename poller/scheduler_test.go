package poller_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources"
)

func memPoller(t *testing.T, st *memStore, f poller.Fetcher, workers, batch int) *poller.Poller {
	t.Helper()
	o := testOptions(st, "mem")
	o.Workers, o.BatchSize, o.Log = workers, batch, slog.New(slog.DiscardHandler)
	o.Fetchers = map[string]poller.Fetcher{model.SourceRSS: f}
	p, err := poller.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPollDueClaimsBatchAfterBatch: the CLI's one round claims batch after
// batch until a batch comes back short, and polls and reports every
// source once.
func TestPollDueClaimsBatchAfterBatch(t *testing.T) {
	st := &memStore{due: dueSources(5)}
	f := &stubFetcher{items: []sources.FeedItem{{URL: "https://news.example.com/1", Title: "One", ContentHTML: "<p>One.</p>"}}}
	p := memPoller(t, st, f, 2, 2)
	var reported []int64
	err := p.PollDue(context.Background(), func(o model.PollOutcome, err error) {
		if err != nil || o.Status != model.StatusOK || o.ItemsNew != 1 {
			t.Errorf("source %d: %+v, %v", o.SourceID, o, err)
		}
		reported = append(reported, o.SourceID)
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(reported)
	if !slices.Equal(reported, []int64{1, 2, 3, 4, 5}) || !slices.Equal(st.claims, []int{2, 2, 1}) || len(st.saves) != 5 {
		t.Fatalf("reported %v, claims %v, %d saves; want 1..5, [2 2 1], 5", reported, st.claims, len(st.saves))
	}
	for _, s := range st.saves {
		if len(s.Articles) != 1 || s.Run.ItemsSeen != 1 || s.Source.Status != model.StatusOK || s.Owner != "mem" {
			t.Errorf("save of source %d: %+v", s.SourceID, s)
		}
	}
}

// TestPollDueGivesBackUnstartedSources: stopped while its one worker is
// busy, a round records nothing, gives back the lease of every source it
// claimed, started or not, and says it was stopped.
func TestPollDueGivesBackUnstartedSources(t *testing.T) {
	st := &memStore{due: dueSources(3)}
	f := &stubFetcher{gate: make(chan struct{}), started: make(chan int64, 3)}
	p := memPoller(t, st, f, 1, 10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var err error
	var recorded int
	go func() {
		defer wg.Done()
		err = p.PollDue(ctx, func(_ model.PollOutcome, err error) {
			if err == nil {
				recorded++
			}
		})
	}()
	if id := <-f.started; id != 1 {
		t.Fatalf("first poll of source %d", id)
	}
	cancel()
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	released := slices.Clone(st.released)
	slices.Sort(released)
	// Source 1's poll was cut short by the stop, which is not its failure:
	// its lease is given back like those of the sources not started. (A
	// source handed to the worker as the stop came is polled on the
	// cancelled context, which gives its lease back as well.)
	if !slices.Equal(released, []int64{1, 2, 3}) || len(st.saves) != 0 || recorded != 0 {
		t.Errorf("released %v, %d saves, %d polls recorded; want [1 2 3], 0, 0", released, len(st.saves), recorded)
	}
}

// TestLeaseNotGivenBackIsLogged: a poll that gives its lease back (here:
// its lease was spent before a worker took it) and cannot says so in the
// log; the lease then runs out by itself.
func TestLeaseNotGivenBackIsLogged(t *testing.T) {
	st := &memStore{releaseErr: errors.New("database is locked")}
	logs := &syncBuffer{}
	o := testOptions(st, "mem")
	o.Fetchers = map[string]poller.Fetcher{model.SourceRSS: &stubFetcher{}}
	o.Log = slog.New(slog.NewTextHandler(logs, nil))
	p, err := poller.New(o)
	if err != nil {
		t.Fatal(err)
	}
	src := dueSources(1)[0]
	spent := time.Now().Add(-time.Second)
	src.LeaseUntil = &spent
	if _, err := p.Poll(context.Background(), src); err == nil || !strings.Contains(err.Error(), "lease ran out before a worker took it") {
		t.Fatalf("err %v, want the poll not recorded", err)
	}
	if lines := logs.Lines("level=WARN", "could not release leases", `err="database is locked"`); len(lines) != 1 {
		t.Errorf("log:\n%s\nwant one warning naming the error", logs)
	}
}

// TestSaveCutByTheLeaseIsNoOutage: a save still running when the poll's
// lease ends (a loaded machine) is a poll not recorded because its lease
// ran out, never logged as the database being unavailable.
func TestSaveCutByTheLeaseIsNoOutage(t *testing.T) {
	st := &memStore{due: dueSources(1), saveUntilDone: true}
	f := &stubFetcher{items: []sources.FeedItem{{URL: "https://news.example.com/1", Title: "One", ContentHTML: "<p>One.</p>"}}}
	var buf syncBuffer
	o := testOptions(st, "mem")
	o.Workers, o.BatchSize, o.Lease = 1, 1, time.Second
	o.Log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.Fetchers = map[string]poller.Fetcher{model.SourceRSS: f}
	p, err := poller.New(o)
	if err != nil {
		t.Fatal(err)
	}
	var pollErr error
	if err := p.PollDue(context.Background(), func(_ model.PollOutcome, err error) { pollErr = err }); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(pollErr, model.ErrLeaseLost) {
		t.Errorf("poll error %v, want the lease lost", pollErr)
	}
	log := buf.String()
	if strings.Contains(log, "database unavailable") {
		t.Errorf("a save cut by the lease was logged as an outage:\n%s", log)
	}
	if !strings.Contains(log, "lease ran out") {
		t.Errorf("the log does not say the lease ran out:\n%s", log)
	}
}
