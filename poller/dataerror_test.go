package poller_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// jsonFeed is a JSON Feed whose first item carries NUL characters in its
// id, title and content; the second is clean.
const jsonFeed = `{"version": "https://jsonfeed.org/version/1.1", "title": "Feed\u0000Title", "items": [
 {"id": "a\u00001", "url": "https://news.example.com/a", "title": "Bad\u0000 title",
  "content_html": "<p>Some\u0000 text</p>` + jsonBody + `"},
 {"id": "b2", "url": "https://news.example.com/b", "title": "Clean title", "content_html": "<p>Clean</p>` + jsonBody + `"}]}`

const jsonBody = `<p>Paragraph one explains the release in some detail, with enough words to count as a real article body.</p>` +
	`<p>Paragraph two explains the release in more detail, with enough words to count as a real article body too.</p>`

// TestNULInFeedIsStrippedBeforeStorage: NUL characters and invalid UTF-8
// from a feed or a page are removed before storage, the same way on both
// databases, and the poll stores its items. (PostgreSQL refused the whole
// poll: "invalid byte sequence for encoding UTF8: 0x00".)
func TestNULInFeedIsStrippedBeforeStorage(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		e.feeds.set("/feed.json", jsonFeed)
		src := e.addSource("/feed.json")
		out := e.pollNow(src)
		if out.Status != model.StatusOK || out.ItemsNew != 2 {
			t.Fatalf("poll %+v, want ok with 2 new articles", out)
		}
		var rows []struct {
			ID    *string `db:"external_id"`
			Title string  `db:"title"`
			MD    string  `db:"content_markdown"`
		}
		if err := e.store.DB().Select(&rows, "SELECT external_id, title, content_markdown FROM feed_articles ORDER BY external_id"); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || *rows[0].ID != "a1" || rows[0].Title != "Bad title" || *rows[1].ID != "b2" {
			t.Fatalf("stored %+v, want ids a1 and b2 and the title without NUL", rows)
		}
		if !strings.Contains(rows[0].MD, "Some text") {
			t.Errorf("content %q lost its text", rows[0].MD)
		}
		for _, r := range rows {
			for _, v := range []string{*r.ID, r.Title, r.MD} {
				if strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
					t.Errorf("stored %q holds NUL or invalid UTF-8", v)
				}
			}
		}
		got, _ := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
		if got.Title != "FeedTitle" {
			t.Errorf("source title %q, want FeedTitle", got.Title)
		}
		// The same feed again: the items are known, by GUID as stored.
		e.feeds.set("/feed.json", jsonFeed+" ")
		if out := e.pollNow(src); out.ItemsNew != 0 || out.ItemsDuplicate != 2 {
			t.Errorf("second poll %+v, want both items recognised as stored", out)
		}
	})
}

// TestNULInPageHeadlineIsStripped: a web page whose JSON-LD headline holds
// NUL and whose text holds invalid UTF-8 is stored cleaned.
func TestNULInPageHeadlineIsStripped(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{})
		e.site.set("/page", "text/html; charset=utf-8", `<!doctype html><html><head><title>Title</title>
<script type="application/ld+json">{"@type":"NewsArticle","headline":"Head\u0000line","author":{"@type":"Person","name":"A\u0000da"}}</script>
</head><body><article><h1>Headline</h1><p>Broken `+"\xff\xfe"+` bytes and a NUL &#0; here.</p>`+
			paragraphs("a page with hostile bytes")+`</article></body></html>`)
		src := e.addWeb(e.site.url("/page"), false)
		outs := e.pollDue()
		if len(outs) != 1 || outs[0].Status != model.StatusOK || outs[0].ItemsNew != 1 {
			t.Fatalf("poll %+v, want one ok poll storing the page", outs)
		}
		a := e.articles(src)[0]
		if !strings.Contains(a.ContentMarkdown, "Broken") {
			t.Errorf("content lost its text: %q", a.ContentMarkdown)
		}
		if a.Title != "Headline" || a.Author != "Ada" {
			t.Errorf("title %q, author %q: want NUL removed (Headline, Ada)", a.Title, a.Author)
		}
		for _, v := range []string{a.Title, a.Author, a.Summary, a.ContentMarkdown} {
			if strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
				t.Errorf("stored %q holds NUL or invalid UTF-8", v)
			}
		}
	})
}

// rejectTitles makes the database refuse any article titled "...REJECT...":
// a CHECK constraint on PostgreSQL, a trigger raising ABORT on SQLite. It
// stands for any value the database refuses that the cleaning does not
// catch.
func rejectTitles(t *testing.T, st *store.Store) {
	t.Helper()
	q := `ALTER TABLE feed_articles ADD CONSTRAINT no_rejects CHECK (title NOT LIKE '%REJECT%')`
	if st.Dialect() == store.SQLite {
		q = `CREATE TRIGGER no_rejects BEFORE INSERT ON feed_articles WHEN NEW.title LIKE '%REJECT%'
			BEGIN SELECT RAISE(ABORT, 'rejected title'); END`
	}
	st.DB().MustExec(q)
}

// TestDataErrorIsAFailedPoll: when the database refuses a poll's data, the
// poll is the source's failure, recorded in poll_runs and on the source
// and counted towards the failure limit, not a database outage that
// redoes the poll at every lease expiry and never counts.
func TestDataErrorIsAFailedPoll(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		logs := &syncBuffer{}
		e.poller = newPoller(t, e.store, "test-owner", logTo(logs))
		rejectTitles(t, e.store)
		e.feeds.set("/feed", rssDoc("Refused", entry{"1", "https://news.example.com/1", "Please REJECT me", body("one")},
			entry{"2", "https://news.example.com/2", "Fine", body("two")}))
		src := e.addSource("/feed")
		for poll := 1; poll <= 2; poll++ {
			out, err := e.poller.PollNow(context.Background(), e.ws.ID, src.ID)
			if err != nil {
				t.Fatalf("poll %d: not recorded (%v), want a recorded failure", poll, err)
			}
			if out.Status != model.StatusError || !strings.Contains(out.Error, "refused") || out.ItemsNew != 0 {
				t.Fatalf("poll %d: %+v, want a failed poll saying the database refused its data", poll, out)
			}
			got, _ := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
			if got.ConsecutiveFailures != poll || got.LastPolledStatus != model.StatusError || !strings.Contains(got.LastPolledError, "refused") {
				t.Fatalf("after poll %d: failures %d, status %q, error %q", poll, got.ConsecutiveFailures, got.LastPolledStatus, got.LastPolledError)
			}
			if got.LeaseOwner != "" || !got.NextPollAt.After(got.CreatedAt) {
				t.Fatalf("after poll %d: lease %q, next poll %v: the source must be released and backed off", poll, got.LeaseOwner, got.NextPollAt)
			}
		}
		var runs []model.PollRun
		if err := e.store.DB().Select(&runs, "SELECT outcome, error, items_seen FROM poll_runs ORDER BY id"); err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || runs[0].Outcome != model.StatusError || !strings.Contains(runs[0].Error, "refused") || runs[0].ItemsSeen != 2 {
			t.Fatalf("poll_runs %+v, want two failed runs naming the refusal", runs)
		}
		if n := e.count("feed_articles"); n != 0 {
			t.Errorf("%d articles stored from refused polls, want none", n)
		}
		if l := logs.Lines("database unavailable"); len(l) != 0 {
			t.Errorf("a refused value was logged as an outage: %q", l)
		}
	})
}
