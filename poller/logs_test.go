package poller_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// TestScheduledPollsLogAtInfo: the scheduler logs each poll at info level
// (which source, its outcome and counts, how long it took, when it is
// polled next) and one summary per tick that polled something, and
// nothing at info for the ticks that found nothing due.
func TestScheduledPollsLogAtInfo(t *testing.T) {
	e := newEnv(t, "sqlite", model.RelevanceProfile{})
	logs := &syncBuffer{}
	p := newPoller(t, e.store, "logger", logTo(logs), func(o *poller.Options, _ *fetch.Options) { o.Schedule = "@every 1s" })
	e.feeds.set("/feed", rssDoc("Logged News", entry{"1", "https://news.example.com/1", "One", body("one")},
		entry{"2", "https://news.example.com/2", "Two", body("two")}))
	src := e.addSource("/feed")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = p.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()

	// The poll, then three ticks with nothing due; the tick's summary is
	// written when its polls are done, so it may trail a little.
	waitFor(t, logs, func() bool { return e.count("poll_runs") == 1 && len(logs.Lines("level=DEBUG", "nothing due")) >= 3 })
	waitFor(t, logs, func() bool { return len(logs.Lines("msg=tick ", "claimed=1")) > 0 })
	cancel()
	wg.Wait()

	polls := logs.Lines("level=INFO", "msg=poll ")
	if len(polls) != 1 {
		t.Fatalf("%d info lines for the one poll, want 1; log:\n%s", len(polls), logs)
	}
	for _, want := range []string{"source_id=" + strconv.FormatInt(src.ID, 10), "host=127.0.0.1:", "status=ok", "new=2", "duplicate=0",
		"promoted=2", "ms=", "next_poll="} {
		if !strings.Contains(polls[0], want) {
			t.Errorf("poll line lacks %q: %s", want, polls[0])
		}
	}
	ticks := logs.Lines("level=INFO", "msg=tick ")
	if len(ticks) != 1 {
		t.Fatalf("%d info tick lines, want 1 (idle ticks log at debug only); log:\n%s", len(ticks), logs)
	}
	for _, want := range []string{"claimed=1", "polled=1", "outcome.ok=1", "new=2", "ms="} {
		if !strings.Contains(ticks[0], want) {
			t.Errorf("tick line lacks %q: %s", want, ticks[0])
		}
	}
}

// waitFor polls cond for up to a minute, failing the test with the log
// when it never holds.
func waitFor(t *testing.T, logs *syncBuffer, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting; log:\n%s", logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
