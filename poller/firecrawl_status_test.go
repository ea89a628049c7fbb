package poller_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// lastRun is the newest poll_runs row of a source.
func (e *webEnv) lastRun(src *model.FeedSource) (status int, errText string) {
	e.t.Helper()
	row := e.store.DB().QueryRowx(e.store.DB().Rebind(
		"SELECT http_status, error FROM poll_runs WHERE feed_source_id = ? ORDER BY id DESC LIMIT 1"), src.ID)
	if err := row.Scan(&status, &errText); err != nil {
		e.t.Fatal(err)
	}
	return status, errText
}

// TestWebFirecrawlFailureSaysWhoFailed: through a Firecrawl that fetches
// for real, a page Firecrawl could not get (here: its host refuses
// connections) and a page that answered 500 are told apart in what the
// source records: the HTTP status is the page's own (0 when Firecrawl got
// none), and the error names Firecrawl's code or the target's status.
func TestWebFirecrawlFailureSaysWhoFailed(t *testing.T) {
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<h1>Internal Server Error</h1>", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedAddr := closed.Listener.Addr().String()
	closed.Close()
	cases := []struct {
		name, url  string
		httpStatus int
		errPrefix  string
		scrapes    int
	}{
		{name: "Firecrawl could not reach the page", url: "http://down.example.com/page.html", httpStatus: 0,
			errPrefix: "Firecrawl could not fetch the page (empty page, unreachable host or DNS failure; HTTP 500 SCRAPE_ALL_ENGINES_FAILED): All scraping engines failed!",
			scrapes:   fcAttempts},
		{name: "the page answered 500", url: "http://broken.example.com/page.html", httpStatus: 500,
			errPrefix: "target answered HTTP 500", scrapes: 1},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{FetchTargets: true,
					Routes: map[string]string{"down.example.com:80": closedAddr, "broken.example.com:80": broken.Listener.Addr().String()}}})
				src := e.addWeb(tc.url, false)
				out := e.pollNow(src)
				if out.Status != model.StatusError || out.HTTPStatus != tc.httpStatus || !strings.HasPrefix(out.Error, tc.errPrefix) {
					t.Fatalf("outcome %+v, want error with http status %d and %q", out, tc.httpStatus, tc.errPrefix)
				}
				status, errText := e.lastRun(src)
				got := e.source(src)
				if status != tc.httpStatus || !strings.HasPrefix(errText, tc.errPrefix) || !strings.HasPrefix(got.LastPolledError, tc.errPrefix) {
					t.Errorf("poll_runs %d %q, last_polled_error %q", status, errText, got.LastPolledError)
				}
				if n := len(e.fc.Requests()); n != tc.scrapes {
					t.Errorf("%d scrape requests, want %d", n, tc.scrapes)
				}
			})
		}
	})
}

// TestWebFirecrawlTimeoutIsOneScrapePerPoll: a page that takes longer
// than the scrape timeout costs one scrape per poll, not one per retry
// (each retry started a new job on the server), and the error says which
// setting to raise.
func TestWebFirecrawlTimeoutIsOneScrapePerPoll(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		// Scaled time: Firecrawl's 30 s scrape timeout lasts 3 ms.
		e := newWebEnv(t, dialect, model.RelevanceProfile{}, webSetup{firecrawl: &firecrawltest.Config{TimeScale: 0.0001}})
		const target = "https://slow.example.com/page"
		e.fc.Handle(target, firecrawltest.SlowTarget(time.Hour, firecrawltest.Page{HTML: paragraphs("slow")}))
		src := e.addWeb(target, false)
		out := e.pollNow(src)
		want := "Firecrawl scrape timed out (HTTP 408 SCRAPE_TIMEOUT, timeout 30s); the next poll tries again; " +
			"raise FEEDPOLLER_FIRECRAWL_TIMEOUT if the page needs longer than 30s: Scrape timed out"
		if out.Status != model.StatusError || out.Error != want || out.HTTPStatus != 0 {
			t.Fatalf("outcome %+v, want an error saying %q", out, want)
		}
		if n := len(e.fc.Requests()); n != 1 {
			t.Errorf("%d scrape requests in one poll, want 1", n)
		}
		if f := e.source(src).ConsecutiveFailures; f != 1 {
			t.Errorf("consecutive_failures %d, want 1", f)
		}
	})
}
