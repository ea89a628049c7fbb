package poller_test

import (
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/poller/schedule"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// A 503 or 429 whose Retry-After is 0, or a date already past, or one
// read against another clock than the decision's, is polled again after
// the floor: never every tick, never before the poll itself. Stored on
// both databases.
func TestRetryAfterNeverBeforeTheFloor(t *testing.T) {
	doc := rssDoc("Plain", entry{"1", "https://news.example/1", "One", body("one")})
	cases := []struct {
		name, status, retryAfter string
		code                     int
		// fetchOwnClock: the fetcher dates the Retry-After by the real
		// clock while the poller decides at tomorrow's 23:30.
		fetchOwnClock bool
		reason        string
	}{
		{name: "503 Retry-After 0", code: 503, retryAfter: "0", reason: "retry-after 0s, raised to floor 5m (rate limited)"},
		{name: "429 Retry-After 0", code: 429, retryAfter: "0", reason: "retry-after 0s, raised to floor 5m (rate limited)"},
		{name: "429 Retry-After a past date", code: 429, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT",
			reason: "retry-after 0s, raised to floor 5m (rate limited)"},
		{name: "429 Retry-After 120 read against another clock", code: 429, retryAfter: "120", fetchOwnClock: true,
			reason: "retry-after 0s, raised to floor 5m (rate limited)"},
		// Read a few milliseconds before the decision, shown as 1m.
		{name: "503 Retry-After 60", code: 503, retryAfter: "60", reason: "retry-after 1m, raised to floor 5m (rate limited)"},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, dialect, model.RelevanceProfile{})
				clock := clockAt(t, "23:30")
				e.poller = newPoller(t, e.store, "floor", func(o *poller.Options, f *fetch.Options) {
					o.Clock = clock
					if !tc.fetchOwnClock {
						f.Now = clock
					}
				})
				path := "/" + strings.ReplaceAll(tc.name, " ", "-")
				e.feeds.set(path, doc)
				e.feeds.header(path, "Retry-After", tc.retryAfter)
				e.feeds.fail(path, tc.code)
				src := e.addSource(path)
				if out := e.pollNow(src); out.Status != model.StatusDeferred {
					t.Fatalf("poll: %+v, want deferred", out)
				}
				got := e.stored(src)
				if got.reason != tc.reason || got.kind != string(schedule.KindRetryAfter) {
					t.Errorf("reason %q (%s), want %q (retry_after)", got.reason, got.kind, tc.reason)
				}
				if got.interval != schedule.DefaultFloor {
					t.Errorf("next poll %v after the poll, want the floor %v", got.interval, schedule.DefaultFloor)
				}
			})
		}
	})
}

// The ceiling no longer carries a poll into hours or days the feed asked
// not to be read: a feed that skips weekends, polled on a Friday with a
// freshness reaching into Saturday, is polled again on Friday before
// midnight; a freshness of 23h with skipHours 22–03, polled at 00:30,
// comes back at 21:55, not at 00:30 (the policy's own tests show the same
// of a ttl). Stored on both databases.
func TestCeilingKeepsOutOfSkippedHours(t *testing.T) {
	y, m, d := time.Now().UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	friday := today.AddDate(0, 0, 7-(int(today.Weekday())+2)%7) // the next Friday, at least a day ahead
	items := make([]entry, 20)
	for i := range items {
		n := string(rune('a' + i))
		items[i] = entry{n, "https://news.example/" + n, "Item " + n, body("item " + n)}
	}
	cases := []struct {
		name, channel, maxAge string
		start                 time.Time
		next                  time.Time
		reason                string
	}{
		{name: "weekend skipDays, Friday noon, max-age 20h", start: friday.Add(12 * time.Hour),
			channel: "<skipDays><day>Saturday</day><day>Sunday</day></skipDays>", maxAge: "72000",
			next: friday.Add(23*time.Hour + 55*time.Minute), reason: "skipDays from Sat 00:00, polled before them within ceiling 24h"},
		{name: "max-age 23h, skipHours 22-03, at 00:30", start: friday.Add(30 * time.Minute), maxAge: "82800",
			channel: "<skipHours><hour>22</hour><hour>23</hour><hour>0</hour><hour>1</hour><hour>2</hour><hour>3</hour></skipHours>",
			next:    friday.Add(21*time.Hour + 55*time.Minute), reason: "skipHours from 22:00, polled before them within ceiling 24h"},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, dialect, model.RelevanceProfile{})
				clock := clockFrom(tc.start)
				e.poller = newPoller(t, e.store, "skip", func(o *poller.Options, f *fetch.Options) { o.Clock, f.Now = clock, clock })
				path := "/" + strings.ReplaceAll(tc.name, " ", "-")
				e.feeds.set(path, withChannel(tc.channel, items...))
				if tc.maxAge != "" {
					e.feeds.header(path, "Cache-Control", "max-age="+tc.maxAge)
				}
				src := e.addSource(path)
				if out := e.pollNow(src); out.Status != model.StatusOK {
					t.Fatalf("poll: %+v", out)
				}
				got, err := e.store.GetSource(t.Context(), e.ws.ID, src.ID)
				if err != nil {
					t.Fatal(err)
				}
				// The poll took a moment of the clock: the next poll is
				// placed exactly, the poll itself a little after start.
				if !got.NextPollAt.Equal(tc.next) || got.NextPollReason != tc.reason || got.NextPollKind != string(schedule.KindSkip) {
					t.Errorf("next poll %s (%q, %s), want %s (%q, skip)", got.NextPollAt.UTC().Format(time.RFC3339),
						got.NextPollReason, got.NextPollKind, tc.next.Format(time.RFC3339), tc.reason)
				}
			})
		}
	})
}
