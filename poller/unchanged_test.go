package poller_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/store"
)

// failingSaves is the store with saves that fail while fail is set.
type failingSaves struct {
	*store.Store
	fail atomic.Bool
}

func (f *failingSaves) SavePoll(ctx context.Context, p model.PollSave) (model.SaveCounts, error) {
	if f.fail.Load() {
		return model.SaveCounts{}, errors.New("disk I/O error")
	}
	return f.Store.SavePoll(ctx, p)
}

// settlingEntries are the first poll's entries of the tests below; the
// feed then gains newEntry at the top.
func settlingEntries() []entry {
	return []entry{
		{"g1", "https://news.example/a", "Golang 1.26 released", body("golang releases")},
		{"g2", "https://news.example/b", "Gardening tips", body("tomatoes")},
		{"g3", "https://news.example/c", "Scheduling goroutines in Golang", body("the golang scheduler")},
	}
}

var newEntry = entry{"g4", "https://news.example/d", "Golang generics", body("golang generics")}

// TestSettledEntriesAreLeftUnread: a changed feed's entries that an
// earlier poll stored, byte for byte the same, are left unparsed and
// counted as listed and as duplicates; entries of a poll whose save failed
// are not settled, and the next poll stores them.
func TestSettledEntriesAreLeftUnread(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, goProfile)
		saves := &failingSaves{Store: e.store}
		m, err := poller.NewMetrics(nil)
		if err != nil {
			t.Fatal(err)
		}
		e.poller = newPoller(t, e.store, "test-owner", func(o *poller.Options, _ *fetch.Options) { o.Store, o.Metrics = saves, m })
		entries := settlingEntries()
		e.feeds.set("/feed", rssDoc("News", entries...))
		src := e.addSource("/feed")

		saves.fail.Store(true)
		if _, err := e.poller.PollNow(context.Background(), e.ws.ID, src.ID); err == nil {
			t.Fatal("poll with a failing save reported no error")
		}
		saves.fail.Store(false)
		// The failed poll's lease would hold the source until it expires.
		if _, err := e.store.DB().Exec(`UPDATE feed_sources SET lease_until = NULL, lease_owner = ''`); err != nil {
			t.Fatal(err)
		}
		out := e.pollNow(src)
		if out.ItemsNew != 3 || out.ItemsUnchanged != 0 {
			t.Fatalf("poll after a failed save %+v, want the 3 entries stored, none left unread", out)
		}

		e.feeds.set("/feed", rssDoc("News", append([]entry{newEntry}, entries...)...))
		out = e.pollNow(src)
		if out.ItemsSeen != 4 || out.ItemsNew != 1 || out.ItemsDuplicate != 3 || out.ItemsUnchanged != 3 {
			t.Fatalf("changed feed poll %+v, want 4 seen, 1 new, 3 duplicates left unread", out)
		}
		var seen, dups int
		if err := e.store.DB().QueryRow(`SELECT items_seen, items_duplicate FROM poll_runs ORDER BY id DESC LIMIT 1`).Scan(&seen, &dups); err != nil {
			t.Fatal(err)
		}
		if seen != 4 || dups != 3 {
			t.Fatalf("poll run records %d seen, %d duplicates; want 4 and 3", seen, dups)
		}
		if n := e.count("feed_articles"); n != 4 {
			t.Fatalf("%d articles, want 4", n)
		}
		if n := testutil.ToFloat64(m.Items.WithLabelValues("unchanged")); n != 3 {
			t.Fatalf("feedpoller_items_total{result=\"unchanged\"} %v, want 3", n)
		}

		// An entry that changed is read again: here its title.
		entries[1].title = "Gardening tips, revised"
		e.feeds.set("/feed", rssDoc("News", append([]entry{newEntry}, entries...)...))
		out = e.pollNow(src)
		if out.ItemsSeen != 4 || out.ItemsNew != 0 || out.ItemsDuplicate != 4 || out.ItemsUnchanged != 3 {
			t.Fatalf("poll after an entry changed %+v, want 4 seen, 4 duplicates, 3 of them left unread", out)
		}
	})
}

// TestPushesAndPollsShareSettledEntries: a hub's delivery leaves out the
// entries a poll settled, and the next poll leaves out the entry the
// delivery stored.
func TestPushesAndPollsShareSettledEntries(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, goProfile)
		memory := rss.NewUnchanged()
		client := fetch.New(fetch.Options{AllowPrivateNetworks: true, Attempts: 1, PerDomainGap: -1,
			PerDomainConcurrency: 64, Timeout: 5 * time.Second, Resolver: loopback{}})
		t.Cleanup(client.CloseIdleConnections)
		po := testOptions(e.store, "test-owner")
		po.Fetchers = map[string]poller.Fetcher{model.SourceRSS: &rss.Fetcher{Client: client, Unchanged: memory}}
		po.Pipeline.Pages = client
		p, err := poller.New(po)
		if err != nil {
			t.Fatal(err)
		}
		e.poller = p
		entries := settlingEntries()
		e.feeds.set("/feed", rssDoc("News", entries...))
		src := e.addSource("/feed")
		if out := e.pollNow(src); out.ItemsNew != 3 {
			t.Fatalf("first poll %+v, want 3 new", out)
		}

		doc := rssDoc("News", append([]entry{newEntry}, entries...)...)
		res, err := memory.Parse([]byte(doc), "application/rss+xml", "", src.URL, 0, src.ID, src.URL)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Push(context.Background(), *stored, res)
		if err != nil {
			t.Fatal(err)
		}
		if out.ItemsSeen != 4 || out.ItemsNew != 1 || out.ItemsDuplicate != 3 || out.ItemsUnchanged != 3 {
			t.Fatalf("push %+v, want 4 seen, 1 new, 3 duplicates left unread", out)
		}

		e.feeds.set("/feed", doc)
		if out := e.pollNow(src); out.ItemsSeen != 4 || out.ItemsNew != 0 || out.ItemsUnchanged != 4 {
			t.Fatalf("poll after the push %+v, want all 4 entries left unread", out)
		}
	})
}
