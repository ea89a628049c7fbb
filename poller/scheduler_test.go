package poller_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

func memPoller(t *testing.T, st *memStore, f poller.Fetcher, workers, batch int) *poller.Poller {
	t.Helper()
	o := testOptions(st, "mem")
	o.Workers, o.BatchSize, o.Log = workers, batch, slog.New(slog.DiscardHandler)
	o.Fetchers = map[string]poller.Fetcher{store.SourceRSS: f}
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
	err := p.PollDue(context.Background(), func(o poller.Outcome, err error) {
		if err != nil || o.Status != store.StatusOK || o.ItemsNew != 1 {
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
		if len(s.Articles) != 1 || s.Run.ItemsSeen != 1 || s.Source.Status != store.StatusOK || s.Owner != "mem" {
			t.Errorf("save of source %d: %+v", s.SourceID, s)
		}
	}
}

// TestPollDueGivesBackUnstartedSources: stopped while its one worker is
// busy, a round gives back the leases of the sources it claimed but did
// not start, and says it was stopped.
func TestPollDueGivesBackUnstartedSources(t *testing.T) {
	st := &memStore{due: dueSources(3)}
	f := &stubFetcher{gate: make(chan struct{}), started: make(chan int64, 3)}
	p := memPoller(t, st, f, 1, 10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var err error
	var reports int
	go func() {
		defer wg.Done()
		err = p.PollDue(ctx, func(poller.Outcome, error) { reports++ })
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
	// Sources 2 and 3 never started; source 1's poll was cut short by the
	// stop, which is not its failure: its lease is given back too.
	if !slices.Equal(released, []int64{1, 2, 3}) || len(st.saves) != 0 || reports != 1 {
		t.Errorf("released %v, %d saves, %d reports; want [1 2 3], 0, 1", released, len(st.saves), reports)
	}
}
