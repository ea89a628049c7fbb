package opml

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/fakeclock"
)

// fakeCreator is an in-memory source service: it records every call, the
// creations in flight in total and per host, and the (fake) time each
// creation started. Calls block until release is closed, once the first
// wave has filled the bound, so the bound is really reached.
type fakeCreator struct {
	clock Clock
	// fail decides a URL's error (nil: created).
	fail func(Spec) error
	// waitFor is how many calls must be in flight before any returns
	// (0: none wait).
	waitFor int

	mu          sync.Mutex
	calls       []Spec
	inflight    int
	maxInflight int
	perHost     map[string]int
	maxPerHost  int
	starts      map[string][]time.Time
	full        chan struct{}
	nextID      int64
}

func newFakeCreator(clock Clock, waitFor int) *fakeCreator {
	return &fakeCreator{clock: clock, waitFor: waitFor, perHost: map[string]int{}, starts: map[string][]time.Time{},
		full: make(chan struct{})}
}

func (f *fakeCreator) CreateSource(ctx context.Context, ws int64, spec Spec) (Result, error) {
	u, _ := url.Parse(spec.URL)
	host := strings.ToLower(u.Hostname())
	f.mu.Lock()
	f.calls = append(f.calls, spec)
	f.inflight++
	f.perHost[host]++
	f.maxInflight = max(f.maxInflight, f.inflight)
	f.maxPerHost = max(f.maxPerHost, f.perHost[host])
	if f.clock != nil {
		f.starts[host] = append(f.starts[host], f.clock.Now())
	}
	filled := f.waitFor > 0 && f.inflight == f.waitFor
	if filled {
		f.waitFor = 0
	}
	wait := f.waitFor > 0
	f.mu.Unlock()
	if filled {
		// Give a scheduler that starts more than the bound every chance to
		// do so while the first wave is still in flight.
		for range 1000 {
			runtime.Gosched()
		}
		close(f.full)
	}
	if wait {
		select {
		case <-f.full:
		case <-ctx.Done():
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inflight--
	f.perHost[host]--
	if f.fail != nil {
		if err := f.fail(spec); err != nil {
			return Result{}, err
		}
	}
	f.nextID++
	return Result{SourceID: f.nextID, Title: "fetched " + spec.Title}, nil
}

func feedOutlines(hosts, perHost int) []Outline {
	var out []Outline
	for i := range perHost {
		for h := range hosts {
			out = append(out, Outline{Text: fmt.Sprintf("feed %d-%d", h, i), XMLURL: fmt.Sprintf("https://host%d.example/feed%d.xml", h, i)})
		}
	}
	return out
}

func TestImportBoundsConcurrencyAndHosts(t *testing.T) {
	for _, bound := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			fc := newFakeCreator(nil, bound)
			outlines := feedOutlines(20, 5) // 100 creations on 20 hosts
			rep, err := Import(context.Background(), fc, 7, outlines, ImportOptions{Concurrency: bound, HostGap: -1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Added != 100 || len(fc.calls) != 100 {
				t.Fatalf("added %d with %d calls, want 100", rep.Added, len(fc.calls))
			}
			if fc.maxInflight != bound {
				t.Errorf("max in flight %d, want the bound %d", fc.maxInflight, bound)
			}
			if fc.maxPerHost != 1 {
				t.Errorf("max in flight on one host %d, want 1", fc.maxPerHost)
			}
		})
	}
}

// Outlines on one host run one after another, HostGap apart, while other
// hosts proceed within the gap. The fake clock moves only while nothing is
// in flight (one creation at a time, or one host), so each creation reads
// the time it was started at.
func TestImportHostGap(t *testing.T) {
	const gap = 2 * time.Second
	cases := []struct {
		hosts, concurrency int
		elapsed            time.Duration // fake time of the whole import
	}{
		{hosts: 3, concurrency: 1, elapsed: 3 * gap},
		{hosts: 1, concurrency: 8, elapsed: 3 * gap},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d hosts, %d at a time", c.hosts, c.concurrency), func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			clock := fakeclock.New(start)
			fc := newFakeCreator(clock, 0)
			rep, err := Import(context.Background(), fc, 1, feedOutlines(c.hosts, 4), ImportOptions{Concurrency: c.concurrency, HostGap: gap, Clock: clock})
			if err != nil || rep.Added != 4*c.hosts {
				t.Fatalf("added %d, err %v", rep.Added, err)
			}
			for host, starts := range fc.starts {
				if len(starts) != 4 {
					t.Errorf("%s: %d creations, want 4", host, len(starts))
				}
				for i := 1; i < len(starts); i++ {
					if d := starts[i].Sub(starts[i-1]); d < gap {
						t.Errorf("%s: creations %d and %d started %v apart, want at least %v", host, i-1, i, d, gap)
					}
				}
			}
			if got := clock.Now().Sub(start); got != c.elapsed {
				t.Errorf("the import took %v of fake time, want %v: the gap must not hold up other hosts", got, c.elapsed)
			}
		})
	}
}

func TestImportOtherReadersList(t *testing.T) {
	outlines := parseFile(t, "testdata/other-reader.opml").Outlines
	cases := []struct {
		webPages bool
		want     []Status
	}{
		{false, []Status{StatusAdded, StatusAdded, StatusRejected, StatusAdded, StatusAdded, StatusRejected, StatusAdded, StatusDuplicate, StatusAdded, StatusAdded, StatusAdded, StatusRejected}},
		{true, []Status{StatusAdded, StatusAdded, StatusAdded, StatusAdded, StatusAdded, StatusAdded, StatusAdded, StatusDuplicate, StatusAdded, StatusAdded, StatusAdded, StatusRejected}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("web pages %v", c.webPages), func(t *testing.T) {
			fc := newFakeCreator(nil, 0)
			rep, err := Import(context.Background(), fc, 1, outlines, ImportOptions{WebPages: c.webPages, HostGap: -1})
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range rep.Outcomes {
				if o.Status != c.want[i] {
					t.Errorf("outline %d (%s): %s %q, want %s", i, o.URL, o.Status, o.Reason, c.want[i])
				}
			}
			for _, call := range fc.calls {
				if call.URL == "https://GO.dev/blog/feed.atom#latest" {
					t.Errorf("the duplicate in the file was created")
				}
			}
			if o := rep.Outcomes[7]; !strings.Contains(o.Reason, "same URL as outline 1 (line 14)") {
				t.Errorf("duplicate reason %q", o.Reason)
			}
			if o := rep.Outcomes[11]; !strings.Contains(o.Reason, "not an http or https URL") {
				t.Errorf("feed: URL reason %q", o.Reason)
			}
			if o := rep.Outcomes[3]; o.Type != TypeRSS || o.Category != "Databases/PostgreSQL" || o.Title != "fetched PostgreSQL News" || o.SourceID == 0 {
				t.Errorf("added outcome = %+v", o)
			}
			if c.webPages {
				if o := rep.Outcomes[5]; o.Type != TypeWeb || o.URL != "https://sqlite.org/changes.html" || o.Category != "Databases" {
					t.Errorf("web page outcome = %+v", o)
				}
			} else if o := rep.Outcomes[2]; !strings.Contains(o.Reason, "web pages") {
				t.Errorf("htmlUrl-only reason %q", o.Reason)
			}
			if rep.Added+rep.Duplicates+rep.Rejected != len(outlines) || rep.Skipped != 0 {
				t.Errorf("counts %+v", rep)
			}
		})
	}
}

func TestImportClassifiesCreatorErrors(t *testing.T) {
	outlines := []Outline{
		{Text: "ok", XMLURL: "https://a.example/ok"},
		{Text: "exists", XMLURL: "https://b.example/exists"},
		{Text: "known", XMLURL: "https://c.example/known"},
		{Text: "html", XMLURL: "https://d.example/not-a-feed"},
		{Text: "down", XMLURL: "https://e.example/down"},
		{Text: "again", XMLURL: "HTTPS://C.example:443/known"},
	}
	fc := newFakeCreator(nil, 0)
	fc.fail = func(s Spec) error {
		switch {
		case strings.HasSuffix(s.URL, "/exists"):
			return fmt.Errorf("create source: %w", ErrDuplicate)
		case strings.HasSuffix(s.URL, "/not-a-feed"):
			return fmt.Errorf("%w: not a feed: text/html", ErrInvalid)
		case strings.HasSuffix(s.URL, "/down"):
			return fmt.Errorf("%w: HTTP 503", ErrUnavailable)
		}
		return nil
	}
	rep, err := Import(context.Background(), fc, 1, outlines, ImportOptions{HostGap: -1, Existing: []string{"https://c.example/known"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status Status
		reason string
	}{
		{StatusAdded, ""},
		{StatusDuplicate, "duplicate source"},
		{StatusDuplicate, "already has this source"},
		{StatusRejected, "not a feed: text/html"},
		{StatusRejected, "HTTP 503"},
		{StatusDuplicate, "same URL as outline 3 earlier"},
	}
	for i, w := range want {
		o := rep.Outcomes[i]
		if o.Status != w.status || !strings.Contains(o.Reason, w.reason) {
			t.Errorf("outline %d: %s %q, want %s %q", i, o.Status, o.Reason, w.status, w.reason)
		}
	}
	if len(fc.calls) != 4 {
		t.Errorf("%d creations, want 4 (existing sources need none)", len(fc.calls))
	}
	if rep.Added != 1 || rep.Duplicates != 3 || rep.Rejected != 2 {
		t.Errorf("counts %+v", rep)
	}
}

// A failure of the service itself stops the import: nothing more starts,
// the rest is reported skipped, and the error comes back.
func TestImportStopsOnServiceFailure(t *testing.T) {
	outlines := feedOutlines(1, 10) // one host: strictly one after another
	fc := newFakeCreator(nil, 0)
	dbDown := errors.New("database is down")
	fc.fail = func(s Spec) error {
		if strings.HasSuffix(s.URL, "feed3.xml") {
			return dbDown
		}
		return nil
	}
	rep, err := Import(context.Background(), fc, 1, outlines, ImportOptions{HostGap: -1})
	if !errors.Is(err, dbDown) {
		t.Fatalf("err = %v, want the service failure", err)
	}
	if len(fc.calls) != 4 || rep.Added != 3 || rep.Skipped != 7 {
		t.Errorf("%d calls, report %+v", len(fc.calls), rep)
	}
	if o := rep.Outcomes[9]; o.Status != StatusSkipped || !strings.Contains(o.Reason, "database is down") {
		t.Errorf("last outcome %+v", o)
	}
}

func TestImportCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	outlines := feedOutlines(1, 10)
	fc := newFakeCreator(nil, 0)
	fc.fail = func(s Spec) error {
		if strings.HasSuffix(s.URL, "feed1.xml") {
			cancel()
		}
		return nil
	}
	rep, err := Import(ctx, fc, 1, outlines, ImportOptions{HostGap: -1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if rep.Added != 2 || rep.Skipped != 8 || len(fc.calls) != 2 {
		t.Errorf("%d calls, report %+v", len(fc.calls), rep)
	}
}

func TestImportProgress(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	outlines := append(feedOutlines(1, 4), Outline{Text: "dup", XMLURL: "https://host0.example/feed0.xml"})
	var seen []Progress
	fc := newFakeCreator(clock, 0)
	_, err := Import(context.Background(), fc, 1, outlines, ImportOptions{HostGap: 10 * time.Second, Clock: clock,
		Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 5 {
		t.Fatalf("%d progress calls, want 5 (start + 4 creations): %v", len(seen), seen)
	}
	if seen[0].Done != 1 || seen[0].Duplicates != 1 || seen[0].Total != 5 {
		t.Errorf("first progress %+v: the duplicate is decided before any creation", seen[0])
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Done != seen[i-1].Done+1 {
			t.Errorf("progress %d: done %d after %d", i, seen[i].Done, seen[i-1].Done)
		}
	}
	// The third creation ends two gaps (20 s) after the start: 0.15 per
	// second, and the one left takes 6.67 s at that rate.
	if p := seen[3]; math.Abs(p.Rate-0.15) > 1e-9 || p.ETA.Round(time.Millisecond) != 6667*time.Millisecond || p.Elapsed != 20*time.Second {
		t.Errorf("progress after 3 creations: %+v", p)
	}
	if s := seen[4].String(); !strings.HasPrefix(s, "5/5 (added 4, duplicate 1, rejected 0)") {
		t.Errorf("String() = %q", s)
	}
}
