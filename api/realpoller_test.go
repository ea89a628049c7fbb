package api_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/rss"
	"github.com/feedpoller/feedpoller/store"
)

// withRealPoller serves "poll now" through a real poller over the test's
// store, logging to logs.
func withRealPoller(logs *syncBuffer) envOption {
	return func(o *apiOptions) {
		client := fetch.New(fetch.Options{AllowPrivateNetworks: true, Attempts: 1, PerDomainGap: -1, RetryBaseDelay: -1,
			Timeout: 10 * time.Second, Logger: slog.New(slog.DiscardHandler)})
		po := poller.DefaultOptions()
		po.Store, po.Owner, po.Jitter = o.Store, "api-poller", -1
		po.Fetchers = map[string]poller.Fetcher{model.SourceRSS: &rss.Fetcher{Client: client}}
		po.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		p, err := poller.New(po)
		if err != nil {
			panic(err)
		}
		o.Poller = p
	}
}

// bigFeed serves a feed of n items with a few kilobytes of content each,
// new items (new GUIDs) on every request, so every poll has rows to write.
func bigFeed(t *testing.T, n int) *httptest.Server {
	round := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		round++
		w.Header().Set("Content-Type", "application/rss+xml")
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title>`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `<item><title>Item %d-%d</title><link>http://example.test/%d/%d</link><guid>%d-%d</guid><description><![CDATA[%s]]></description></item>`,
				round, i, round, i, round, i, strings.Repeat(fmt.Sprintf("<p>Round %d item %d has a long paragraph of words.</p>", round, i), 60))
		}
		b.WriteString(`</channel></rss>`)
		io.WriteString(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRefusedDataPollNowAnswersOutcome: poll-now of a source whose data
// the database refuses answers 200 with the failed outcome (not 500), and
// the failure is recorded and counted, on both databases.
func TestRefusedDataPollNowAnswersOutcome(t *testing.T) {
	logs := &syncBuffer{}
	forEachDialect(t, func(t *testing.T, e *env) {
		q := `ALTER TABLE feed_articles ADD CONSTRAINT no_rejects CHECK (title NOT LIKE '%Item%')`
		if e.store.Dialect() == store.SQLite {
			q = `CREATE TRIGGER no_rejects BEFORE INSERT ON feed_articles WHEN NEW.title LIKE '%Item%'
				BEGIN SELECT RAISE(ABORT, 'rejected title'); END`
		}
		e.store.DB().MustExec(q)
		feed := bigFeed(t, 2)
		ws := e.createWorkspace(t, "refused")
		src := e.createSource(t, ws.ID, map[string]any{"url": feed.URL + "/feed"})
		var out struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		}
		e.do("POST", path("/%d/sources/%d/poll", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &out)
		if out.Status != model.StatusError || !strings.Contains(out.Error, "refused") {
			t.Fatalf("poll answer %+v, want the failed outcome naming the refusal", out)
		}
		var got sourceJSON
		e.do("GET", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &got)
		if got.ConsecutiveFailures != 1 || got.LastPolledStatus != model.StatusError || len(got.RecentPolls) != 1 ||
			got.RecentPolls[0].Outcome != model.StatusError {
			t.Fatalf("source after the refused poll: %+v", got)
		}
		// Refused data is no outage: readiness stays.
		e.do("GET", "/readyz", "", nil).want(t, http.StatusOK)
	}, withRealPoller(logs))
	if l := logs.String(); strings.Contains(l, "database unavailable") {
		t.Errorf("refused data logged as an outage:\n%s", l)
	}
}

// TestReadyzWhileWritesFail: with the SQLite database full (max_page_count
// pinned to its current size: the real SQLITE_FULL a full disk gives), the
// daemon stays up and reads still work, but /readyz answers 503 naming the
// failing writes; the log counts them; once writes succeed again it is
// ready.
func TestReadyzWhileWritesFail(t *testing.T) {
	logs := &syncBuffer{}
	e := newEnv(t, "sqlite", withRealPoller(logs))
	feed := bigFeed(t, 20)
	ws := e.createWorkspace(t, "full")
	src := e.createSource(t, ws.ID, map[string]any{"url": feed.URL + "/feed"})

	// One connection in each pool (the reads' and the writing
	// transactions'), so the page limit (a per-connection setting) holds
	// for every statement.
	db := e.store.DB()
	db.SetMaxOpenConns(1)
	var pages int
	if err := db.Get(&pages, "PRAGMA page_count"); err != nil {
		t.Fatal(err)
	}
	db.MustExec(fmt.Sprintf("PRAGMA max_page_count = %d", pages))
	e.store.WriterDB().MustExec(fmt.Sprintf("PRAGMA max_page_count = %d", pages))
	releaseLease := func() {
		db.MustExec(`UPDATE feed_sources SET lease_until = NULL, lease_owner = '' WHERE id = ?`, src.ID)
	}

	const failed = 3
	for i := 0; i < failed; i++ {
		r := e.call(call{method: "POST", path: path("/%d/sources/%d/poll", ws.ID, src.ID), token: e.admin, serverError: true})
		if r.status != http.StatusInternalServerError {
			t.Fatalf("poll %d on a full database answered %d: %s", i, r.status, r.body)
		}
		releaseLease()
	}
	var h struct{ Status, Reason string }
	e.do("GET", "/readyz", "", nil).want(t, http.StatusServiceUnavailable).decode(t, &h)
	if h.Status != "unavailable" || !strings.Contains(h.Reason, "saving polls") || !strings.Contains(h.Reason, "full") ||
		!strings.Contains(h.Reason, fmt.Sprintf("%d failed", failed)) {
		t.Fatalf("readyz while writes fail: %+v", h)
	}
	e.do("GET", "/healthz", "", nil).want(t, http.StatusOK)
	e.do("GET", path("/%d/sources", ws.ID), e.admin, nil).want(t, http.StatusOK)
	if n := len(logs.Lines("database unavailable")); n != 1 {
		t.Errorf("%d outage lines for %d failed writes within the interval, want 1", n, failed)
	}

	db.MustExec("PRAGMA max_page_count = 1073741823")
	e.store.WriterDB().MustExec("PRAGMA max_page_count = 1073741823")
	var out struct {
		Status   string `json:"status"`
		ItemsNew int    `json:"items_new"`
	}
	e.do("POST", path("/%d/sources/%d/poll", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &out)
	if out.Status != model.StatusOK || out.ItemsNew != 20 {
		t.Fatalf("poll after space came back: %+v", out)
	}
	e.do("GET", "/readyz", "", nil).want(t, http.StatusOK).decode(t, &h)
	if h.Status != "ready" {
		t.Fatalf("readyz after writes succeed again: %+v", h)
	}
	if len(logs.Lines("database reachable again", fmt.Sprintf("failures_total=%d", failed))) != 1 {
		t.Errorf("the recovery line does not count the %d failed writes:\n%s", failed, logs)
	}
}
