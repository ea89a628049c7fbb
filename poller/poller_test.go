package poller_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/poller/pipeline"
)

var goProfile = model.RelevanceProfile{Keywords: []model.Keyword{{Term: "golang", Weight: 1}}, Threshold: 0.3}

func TestFirstPollThen304ThenChanged(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, goProfile)
		entries := []entry{
			{"g1", "https://news.example/a?utm_source=x", "Golang 1.26 released", body("golang releases")},
			{"g2", "https://news.example/b", "Gardening tips", body("tomatoes")},
			{"g3", "https://news.example/c", "Scheduling goroutines in Golang", body("the golang scheduler")},
		}
		e.feeds.set("/feed", rssDoc("News", entries...))
		src := e.addSource("/feed")

		out := e.pollNow(src)
		if out.Status != model.StatusOK || out.ItemsSeen != 3 || out.ItemsNew != 3 || out.ItemsPromoted != 2 {
			t.Fatalf("first poll %+v, want ok, 3 seen, 3 new, 2 promoted", out)
		}
		if n := e.count("feed_articles"); n != 3 {
			t.Fatalf("%d articles stored, want 3", n)
		}
		var titles []string
		if err := e.store.DB().Select(&titles, "SELECT title FROM content_items ORDER BY title"); err != nil {
			t.Fatal(err)
		}
		if strings.Join(titles, "|") != "Golang 1.26 released|Scheduling goroutines in Golang" {
			t.Fatalf("promoted %q", titles)
		}
		var url string
		if err := e.store.DB().Get(&url, "SELECT external_url FROM feed_articles WHERE external_id = 'g1'"); err != nil {
			t.Fatal(err)
		}
		if url != "https://news.example/a" {
			t.Fatalf("stored URL %q: tracking parameters must be dropped", url)
		}

		out = e.pollNow(src)
		if out.Status != model.StatusNotModified || out.HTTPStatus != 304 || out.ItemsNew != 0 {
			t.Fatalf("second poll %+v, want not_modified 304", out)
		}

		e.feeds.set("/feed", rssDoc("News", append([]entry{{"g4", "https://news.example/d", "Golang generics deep dive", body("golang generics")}}, entries...)...))
		out = e.pollNow(src)
		if out.ItemsSeen != 4 || out.ItemsNew != 1 || out.ItemsDuplicate != 3 || out.ItemsPromoted != 1 {
			t.Fatalf("changed feed poll %+v, want 4 seen, 1 new, 3 duplicate, 1 promoted", out)
		}
		if n := e.count("feed_articles"); n != 4 {
			t.Fatalf("%d articles after change, want 4", n)
		}
		if n := e.count("poll_runs"); n != 3 {
			t.Fatalf("%d poll runs, want 3", n)
		}
		got, _ := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
		if got.Title != "News" || got.ETag == "" || got.LastPolledStatus != model.StatusOK {
			t.Fatalf("source after polls: title %q etag %q status %q", got.Title, got.ETag, got.LastPolledStatus)
		}
	})
}

func TestSameStoryThroughTwoFeedsIsOneContentItem(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		story := body("a shared wire story")
		e.feeds.set("/one", rssDoc("One", entry{"1", "https://one.example/story", "Wire story", story}))
		e.feeds.set("/two", rssDoc("Two", entry{"x", "https://two.example/wire/story", "Wire story", story}))
		first := e.pollNow(e.addSource("/one"))
		second := e.pollNow(e.addSource("/two"))
		// The second feed's one item is new (stored) and not promoted: it is
		// not also counted a duplicate (seen 1 = new 1 + duplicate 0).
		if first.ItemsPromoted != 1 || second.ItemsSeen != 1 || second.ItemsNew != 1 || second.ItemsPromoted != 0 || second.ItemsDuplicate != 0 {
			t.Fatalf("polls %+v then %+v, want the second to see 1 item, store it, promote 0, count 0 duplicates", first, second)
		}
		if n := e.count("content_items"); n != 1 {
			t.Fatalf("%d content items, want 1", n)
		}
		if n := e.count("feed_articles"); n != 2 {
			t.Fatalf("%d articles, want 2", n)
		}
	})
}

func TestFailingSourceStopsAtTenAndSuccessResets(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		ctx := context.Background()
		e.feeds.set("/flaky", rssDoc("Flaky", entry{"1", "https://f.example/1", "One", body("one")}))
		e.feeds.fail("/flaky", 500)
		src := e.addSource("/flaky")
		failures := func() int {
			s, _ := e.store.GetSource(ctx, e.ws.ID, src.ID)
			return s.ConsecutiveFailures
		}
		for i := 0; i < 5; i++ {
			if out := e.pollNow(src); out.Status != model.StatusError || !strings.Contains(out.Error, "500") {
				t.Fatalf("poll %d: %+v, want error naming HTTP 500", i, out)
			}
		}
		if f := failures(); f != 5 {
			t.Fatalf("failures %d, want 5", f)
		}
		e.feeds.fail("/flaky", 0)
		if out := e.pollNow(src); out.Status != model.StatusOK {
			t.Fatalf("recovery poll %+v", out)
		}
		if f := failures(); f != 0 {
			t.Fatalf("failures after a success %d, want 0", f)
		}
		e.feeds.fail("/flaky", 503)
		for i := 0; i < model.MaxConsecutiveFailures; i++ {
			e.pollNow(src)
		}
		if f := failures(); f != 10 {
			t.Fatalf("failures %d, want 10", f)
		}
		// Make it due by time: only the failure limit keeps it out now.
		e.store.DB().MustExec(e.store.DB().Rebind("UPDATE feed_sources SET next_poll_at = ? WHERE id = ?"), time.Now().Add(-time.Hour).UTC(), src.ID)
		before := e.feeds.count("/flaky")
		var outs int
		if err := e.poller.PollDue(ctx, func(o model.PollOutcome, err error) { outs++ }); err != nil {
			t.Fatal(err)
		}
		if outs != 0 || e.feeds.count("/flaky") != before {
			t.Fatalf("a source at 10 failures was polled (%d polls, %d requests)", outs, e.feeds.count("/flaky")-before)
		}
	})
}

func TestTwoPollersNeverPollOneSourceTwice(t *testing.T) {
	e := newEnv(t, "postgres", model.RelevanceProfile{})
	const n = 40
	for i := 0; i < n; i++ {
		path := fmt.Sprintf("/f%d", i)
		e.feeds.set(path, rssDoc("F", entry{fmt.Sprint(i), fmt.Sprintf("https://f.example/%d", i), "Item", body("x")}))
		e.addSource(path)
	}
	a, b := newPoller(t, e.store, "replica-a"), newPoller(t, e.store, "replica-b")
	var wg sync.WaitGroup
	var mu sync.Mutex
	polls := map[int64]int{}
	for _, p := range []*poller.Poller{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.PollDue(context.Background(), func(o model.PollOutcome, err error) {
				mu.Lock()
				polls[o.SourceID]++
				mu.Unlock()
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(polls) != n {
		t.Fatalf("%d sources polled, want %d", len(polls), n)
	}
	for id, c := range polls {
		if c != 1 {
			t.Errorf("source %d polled %d times", id, c)
		}
	}
	for i := 0; i < n; i++ {
		if c := e.feeds.count(fmt.Sprintf("/f%d", i)); c != 1 {
			t.Errorf("feed %d requested %d times", i, c)
		}
	}
	if got := e.count("feed_articles"); got != n {
		t.Fatalf("%d articles, want %d", got, n)
	}
}

func TestHTMLContentBecomesCleanMarkdown(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		html := `<h1>Heading</h1><p>Read <a href="/docs">the docs</a> and <em>enjoy</em> &amp; share.</p>` +
			`<ul><li>first</li><li>second</li></ul><pre><code class="language-go">fmt.Println("a &lt; b")</code></pre>` +
			body("markdown conversion")
		e.feeds.set("/md", rssDoc("MD", entry{"1", "https://md.example/post", "Markdown", html}))
		e.pollNow(e.addSource("/md"))
		var md string
		if err := e.store.DB().Get(&md, "SELECT content_markdown FROM feed_articles"); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"# Heading", "[the docs](https://md.example/docs)", "- first", "- second",
			"```go\nfmt.Println(\"a < b\")\n```", "& share"} {
			if !strings.Contains(md, want) {
				t.Errorf("markdown lacks %q:\n%s", want, md)
			}
		}
		for _, bad := range []string{`\#`, `\[`, "&amp;", "&lt;"} {
			if strings.Contains(md, bad) {
				t.Errorf("markdown is double-escaped (%q):\n%s", bad, md)
			}
		}
	})
}

// An article reached through two URLs is one article: the page's canonical
// URL is its identity, whichever feed or link led to it.
func TestCanonicalURLDedupsAcrossLinks(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		page := func(canonical string) string {
			return `<html><head><title>Story</title><link rel="canonical" href="` + canonical + `"></head><body><article><h1>Story</h1>` +
				body("the canonical story") + `</article></body></html>`
		}
		canonical := e.feeds.named("/story")
		e.feeds.set("/story-amp", page(canonical))
		e.feeds.set("/story", page(canonical))
		// Feeds that carry only a teaser, so the article page is fetched.
		e.feeds.set("/one", rssDoc("One", entry{"a", e.feeds.named("/story-amp?utm_source=rss"), "Story", "<p>Teaser.</p>"}))
		e.feeds.set("/two", rssDoc("Two", entry{"b", e.feeds.named("/story"), "Story", "<p>Teaser.</p>"}))
		first := e.pollNow(e.addSource("/one"))
		second := e.pollNow(e.addSource("/two"))
		if first.ItemsNew != 1 || second.ItemsNew != 0 || second.ItemsDuplicate != 1 {
			t.Fatalf("polls %+v then %+v, want one article and one duplicate", first, second)
		}
		var url, method string
		if err := e.store.DB().QueryRow("SELECT external_url, extraction_method FROM feed_articles").Scan(&url, &method); err != nil {
			t.Fatal(err)
		}
		if url != canonical || method != pipeline.MethodArticlePage {
			t.Fatalf("stored %s via %s, want the canonical URL %s via the article page", url, method, canonical)
		}
	})
}
