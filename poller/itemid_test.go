package poller_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/model"
)

// linklessFeed has items a reader shows although they name no page of
// their own. base is the feed server's URL.
func linklessFeed(base string, extra string) string {
	return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Status</title><link>` + base + `/</link>
<item><title>Maintenance window</title><guid isPermaLink="false">tag:status.example,2026:maint-1</guid>
  <description>&lt;p&gt;The database is upgraded on Sunday.&lt;/p&gt;</description></item>
<item><title>Maintenance window (repeated)</title><guid isPermaLink="false">tag:status.example,2026:maint-1</guid>
  <description>The same id twice in one document.</description></item>
<item><title>Episode 12</title><guid isPermaLink="false">episode-12</guid>
  <description>An episode with an enclosure and no page.</description>
  <enclosure url="` + base + `/media/ep12.mp3" type="audio/mpeg" length="1234"/></item>
<item><title>IMG_0001.JPG</title><link>` + base + `/photos/0001.html</link>
  <description>&lt;img src="https://photos.example/0001.jpg"&gt;</description></item>
<item><title>Neither link nor id</title><description>Nothing stable names this item.</description></item>
` + extra + `</channel></rss>`
}

func TestItemsWithoutLinkAreStoredByTheirID(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		e.feeds.set("/status.xml", linklessFeed(e.feeds.URL, ""))
		src := e.addSource("/status.xml")

		out := e.pollNow(src)
		// 5 items seen: 3 stored, the repeated id is a duplicate, the item
		// with neither link nor id is skipped.
		if out.Status != model.StatusOK || out.ItemsSeen != 5 || out.ItemsNew != 3 || out.ItemsDuplicate != 1 {
			t.Fatalf("first poll %+v, want 5 seen, 3 new, 1 duplicate", out)
		}
		type row struct {
			URL      string         `db:"external_url"`
			GUID     sql.NullString `db:"external_id"`
			Title    string         `db:"title"`
			Markdown string         `db:"content_markdown"`
			Method   string         `db:"extraction_method"`
		}
		var rows []row
		if err := e.store.DB().Select(&rows, `SELECT external_url, external_id, title, content_markdown, extraction_method
			FROM feed_articles ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		want := []row{
			{URL: e.feeds.URL + "/status.xml#tag:status.example,2026:maint-1", Title: "Maintenance window",
				Markdown: "The database is upgraded on Sunday.", Method: "summary_degraded"},
			{URL: e.feeds.URL + "/media/ep12.mp3", Title: "Episode 12",
				Markdown: "An episode with an enclosure and no page.", Method: "summary_degraded"},
			{URL: e.feeds.URL + "/photos/0001.html", Title: "IMG_0001.JPG",
				Markdown: "![](https://photos.example/0001.jpg)", Method: "summary_degraded"},
		}
		if len(rows) != len(want) {
			t.Fatalf("stored %+v, want %d articles", rows, len(want))
		}
		for i := range want {
			rows[i].GUID = sql.NullString{}
			if rows[i] != want[i] {
				t.Errorf("article %d:\n got %+v\nwant %+v", i, rows[i], want[i])
			}
		}
		if n := e.feeds.count("/media/ep12.mp3"); n != 0 {
			t.Errorf("the enclosure was fetched %d times as an article page", n)
		}

		// The next poll knows the linkless item by its id.
		e.feeds.set("/status.xml", linklessFeed(e.feeds.URL,
			`<item><title>Incident resolved</title><guid isPermaLink="false">urn:uuid:0b9f4a8e</guid><description>All systems normal.</description></item>`))
		out = e.pollNow(src)
		if out.ItemsSeen != 6 || out.ItemsNew != 1 || out.ItemsDuplicate != 4 {
			t.Fatalf("second poll %+v, want 6 seen, 1 new, 4 duplicate", out)
		}
		var newURL string
		if err := e.store.DB().Get(&newURL, "SELECT external_url FROM feed_articles WHERE title = 'Incident resolved'"); err != nil {
			t.Fatal(err)
		}
		if newURL != e.feeds.URL+"/status.xml#urn:uuid:0b9f4a8e" {
			t.Errorf("stored URL %q", newURL)
		}
		if n := e.count("feed_articles"); n != 4 {
			t.Errorf("%d articles after two polls, want 4", n)
		}
	})
}

func TestNotAFeedRecordsTheHTTPStatus(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		e.feeds.set("/page", "<html><body><p>A page, not a feed.</p></body></html>")
		out := e.pollNow(e.addSource("/page"))
		if out.Status != model.StatusError || out.HTTPStatus != 200 || !strings.HasPrefix(out.Error, "not a feed") {
			t.Fatalf("poll %+v, want error with http status 200", out)
		}
		var status int
		if err := e.store.DB().Get(&status, "SELECT http_status FROM poll_runs"); err != nil {
			t.Fatal(err)
		}
		if status != 200 {
			t.Errorf("poll_runs.http_status %d, want 200", status)
		}
	})
}
