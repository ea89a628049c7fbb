package poller

import (
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// job is one claimed source handed to a worker, with the tick it belongs to.
type job struct {
	src   model.FeedSource
	tally *tally
}

// tally counts what came of one round of polls (a tick's, or PollDue's),
// for its summary line.
type tally struct {
	start time.Time
	wg    sync.WaitGroup

	mu        sync.Mutex
	claimed   int
	outcomes  map[string]int
	items     [3]int // new, duplicate, promoted
	unwritten int    // polls whose results did not reach the database
	// report, when set, is told of each poll, one call at a time.
	report func(model.PollOutcome, error)
}

func newTally() *tally { return &tally{start: time.Now(), outcomes: map[string]int{}} }

// claim counts n sources claimed; each must end in add or unclaim.
func (t *tally) claim(n int) {
	t.mu.Lock()
	t.claimed += n
	t.mu.Unlock()
	t.wg.Add(n)
}

// unclaim takes back n claimed sources that were released unpolled.
func (t *tally) unclaim(n int) {
	t.mu.Lock()
	t.claimed -= n
	t.mu.Unlock()
	t.wg.Add(-n)
}

func (t *tally) add(out model.PollOutcome, err error) {
	t.mu.Lock()
	if err != nil {
		t.unwritten++
	} else {
		t.outcomes[out.Status]++
		t.items[0] += out.ItemsNew
		t.items[1] += out.ItemsDuplicate
		t.items[2] += out.ItemsPromoted
	}
	if t.report != nil {
		t.report(out, err)
	}
	t.mu.Unlock()
	t.wg.Done()
}

// close logs the tick's summary once all its polls are done, without
// holding up the next tick. A tick that found nothing due is logged at
// debug level only: at info it would be a line every minute saying
// nothing.
func (t *tally) close(log *slog.Logger) {
	t.mu.Lock()
	claimed := t.claimed
	t.mu.Unlock()
	if claimed == 0 {
		log.Debug("tick: nothing due")
		return
	}
	go func() {
		t.wg.Wait()
		t.mu.Lock()
		defer t.mu.Unlock()
		statuses := make([]string, 0, len(t.outcomes))
		for s := range t.outcomes {
			statuses = append(statuses, s)
		}
		sort.Strings(statuses)
		byOutcome := make([]any, 0, len(statuses))
		polled := 0
		for _, s := range statuses {
			byOutcome = append(byOutcome, slog.Int(s, t.outcomes[s]))
			polled += t.outcomes[s]
		}
		log.Info("tick", "claimed", t.claimed, "polled", polled, slog.Group("outcome", byOutcome...),
			"not_recorded", t.unwritten, "new", t.items[0], "duplicate", t.items[1], "promoted", t.items[2],
			"ms", time.Since(t.start).Milliseconds())
	}()
}
