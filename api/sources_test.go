package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Creating sources: each source type, its defaults and its refusals.
func TestCreateSourceSpecCases(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "spec")

		t.Run("web with a valid HTML URL gets 201 and interval 360", func(t *testing.T) {
			src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/page.html", "source_type": "web"})
			if src.PollingIntervalMinutes != 360 || src.SourceType != "web" || !src.IsActive || !src.Due {
				t.Fatalf("web source %+v", src)
			}
			if src.PageTitle == nil || *src.PageTitle != "Loopback Page" || src.Title != "Loopback Page" {
				t.Fatalf("page title not reported or not used as the title: %+v", src)
			}
			if len(src.FeedLinks) != 1 || !strings.HasSuffix(src.FeedLinks[0], "/feed.xml") || !strings.Contains(src.Hint, "feed") {
				t.Fatalf("advertised feed not reported: links %v hint %q", src.FeedLinks, src.Hint)
			}
		})
		t.Run("web without advertised feeds has no hint", func(t *testing.T) {
			src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/plain.html", "source_type": "web", "track_changes": true})
			if src.Hint != "" || len(src.FeedLinks) != 0 || !src.TrackChanges {
				t.Fatalf("plain page %+v", src)
			}
		})
		t.Run("explicit interval overrides 360", func(t *testing.T) {
			src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/page.html?x=1", "source_type": "web",
				"polling_interval_minutes": 45, "title": "Mine"})
			if src.PollingIntervalMinutes != 45 || src.Title != "Mine" {
				t.Fatalf("web source with explicit interval %+v", src)
			}
		})
		t.Run("web with a non-HTML URL gets 400", func(t *testing.T) {
			for _, u := range []string{"/doc.pdf", "/missing"} {
				before := e.countRows(t, "feed_sources")
				r := e.do("POST", path("/%d/sources", ws.ID), e.admin, map[string]any{"url": e.site.URL + u, "source_type": "web"}).
					want(t, http.StatusBadRequest)
				eb := r.errBody(t)
				if !strings.HasPrefix(eb.Error, "page validation failed: ") || eb.Fields["url"] == "" {
					t.Fatalf("%s: error %+v", u, eb)
				}
				if e.countRows(t, "feed_sources") != before {
					t.Fatalf("%s: a refused source was stored", u)
				}
			}
		})
		t.Run("rss gets 201 with feed title and count", func(t *testing.T) {
			src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
			if src.SourceType != "rss" || src.PollingIntervalMinutes != 30 {
				t.Fatalf("rss defaults %+v", src)
			}
			if src.FeedTitle == nil || *src.FeedTitle != "Loopback News" || src.InitialArticleCount == nil || *src.InitialArticleCount != 3 {
				t.Fatalf("feed title/count %+v", src)
			}
			if src.Title != "Loopback News" || src.PageTitle != nil || src.FeedLinks != nil || src.SiteURL != "http://example.test/" {
				t.Fatalf("rss answer %+v", src)
			}
		})
		t.Run("site_url that is not an http(s) URL gets 400", func(t *testing.T) {
			before := e.countRows(t, "feed_sources")
			r := e.do("POST", path("/%d/sources", ws.ID), e.admin,
				map[string]any{"url": e.site.URL + "/feed.xml?site=bad", "site_url": "javascript:alert(1)"}).want(t, http.StatusBadRequest)
			if eb := r.errBody(t); eb.Fields["site_url"] != "must be an http(s) URL" {
				t.Fatalf("error %+v", eb)
			}
			if e.countRows(t, "feed_sources") != before {
				t.Fatal("a refused source was stored")
			}
		})
		t.Run("rss that is not a feed gets 400", func(t *testing.T) {
			for _, c := range []struct{ path, reason string }{{"/missing", "HTTP 404"}, {"/not-a-feed", "feed"}} {
				r := e.do("POST", path("/%d/sources", ws.ID), e.admin, map[string]any{"url": e.site.URL + c.path}).
					want(t, http.StatusBadRequest)
				eb := r.errBody(t)
				if !strings.HasPrefix(eb.Error, "feed validation failed: ") || !strings.Contains(eb.Error, c.reason) || eb.Fields["url"] == "" {
					t.Fatalf("%s: error %+v", c.path, eb)
				}
			}
		})
		t.Run("api is stored without validation", func(t *testing.T) {
			src := e.createSource(t, ws.ID, map[string]any{"url": "https://unreachable.invalid/api", "source_type": "api", "is_active": false})
			if src.SourceType != "api" || src.IsActive || src.Due || src.PollingIntervalMinutes != 30 {
				t.Fatalf("api source %+v", src)
			}
		})
		t.Run("duplicate URL gets 409", func(t *testing.T) {
			before := e.countRows(t, "feed_sources")
			r := e.do("POST", path("/%d/sources", ws.ID), e.admin, map[string]any{"url": e.site.URL + "/feed.xml"}).
				want(t, http.StatusConflict)
			if eb := r.errBody(t); eb.Fields["url"] == "" {
				t.Fatalf("conflict does not name url: %+v", eb)
			}
			if e.countRows(t, "feed_sources") != before {
				t.Fatal("conflict wrote a row")
			}
			// The same URL is fine in another workspace.
			other := e.createWorkspace(t, "other")
			e.createSource(t, other.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
		})
		t.Run("unknown workspace gets 404", func(t *testing.T) {
			e.do("POST", path("/999999/sources"), e.admin, map[string]any{"url": e.site.URL + "/feed.xml"}).want(t, http.StatusNotFound)
		})
	})
}

func TestCreateSourceWithoutValidator(t *testing.T) {
	e := newEnv(t, "sqlite", func(o *apiOptions) { o.Validator = nil })
	ws := e.createWorkspace(t, "nv")
	r := e.do("POST", path("/%d/sources", ws.ID), e.admin, map[string]any{"url": e.site.URL + "/feed.xml"}).
		want(t, http.StatusServiceUnavailable)
	if !strings.Contains(r.errBody(t).Error, "validator") {
		t.Fatalf("503 does not say why: %s", r.body)
	}
	// api sources need no validation.
	e.createSource(t, ws.ID, map[string]any{"url": "https://example.com/x", "source_type": "api"})
}

func TestSourceReadPatchDelete(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "crud")
		src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
		e.createSource(t, ws.ID, map[string]any{"url": "https://example.com/api", "source_type": "api"})

		var list struct{ Items []sourceJSON }
		e.do("GET", path("/%d/sources", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &list)
		if len(list.Items) != 2 || list.Items[0].ID != src.ID || !list.Items[0].Due {
			t.Fatalf("source list %+v", list.Items)
		}

		var got sourceJSON
		e.do("PATCH", path("/%d/sources/%d", ws.ID, src.ID), e.admin, map[string]any{"polling_interval_minutes": 15}).
			want(t, http.StatusOK).decode(t, &got)
		if got.PollingIntervalMinutes != 15 || got.Title != "Loopback News" || !got.IsActive {
			t.Fatalf("patch of the interval changed more: %+v", got)
		}
		e.do("PATCH", path("/%d/sources/%d", ws.ID, src.ID), e.admin, map[string]any{"title": "Renamed", "track_changes": true, "is_active": false}).
			want(t, http.StatusOK).decode(t, &got)
		if got.Title != "Renamed" || !got.TrackChanges || got.IsActive || got.PollingIntervalMinutes != 15 || got.Due {
			t.Fatalf("second patch %+v", got)
		}

		e.do("GET", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &got)
		if got.Title != "Renamed" || got.RecentPolls != nil {
			t.Fatalf("read back %+v", got)
		}

		// Failures, each leaving the row as it was.
		for _, c := range []struct {
			name   string
			method string
			path   string
			body   any
			status int
		}{
			{"empty patch", "PATCH", path("/%d/sources/%d", ws.ID, src.ID), map[string]any{}, http.StatusBadRequest},
			{"url is not patchable", "PATCH", path("/%d/sources/%d", ws.ID, src.ID), map[string]any{"url": "https://x.test/"}, http.StatusBadRequest},
			{"interval 0", "PATCH", path("/%d/sources/%d", ws.ID, src.ID), map[string]any{"polling_interval_minutes": 0, "title": "no"}, http.StatusBadRequest},
			{"title too long", "PATCH", path("/%d/sources/%d", ws.ID, src.ID), map[string]any{"title": strings.Repeat("é", 501)}, http.StatusBadRequest},
			{"patch unknown source", "PATCH", path("/%d/sources/999999", ws.ID), map[string]any{"title": "x"}, http.StatusNotFound},
			{"get unknown source", "GET", path("/%d/sources/999999", ws.ID), nil, http.StatusNotFound},
			{"get non-numeric source", "GET", path("/%d/sources/feed", ws.ID), nil, http.StatusNotFound},
			{"delete unknown source", "DELETE", path("/%d/sources/999999", ws.ID), nil, http.StatusNotFound},
			{"list of unknown workspace", "GET", path("/999999/sources"), nil, http.StatusNotFound},
		} {
			t.Run(c.name, func(t *testing.T) {
				e.do(c.method, c.path, e.admin, c.body).want(t, c.status).errBody(t)
				var now sourceJSON
				e.do("GET", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &now)
				if now.Title != "Renamed" || now.PollingIntervalMinutes != 15 {
					t.Fatalf("refused request changed the source: %+v", now)
				}
			})
		}

		var del struct {
			Deleted  bool   `json:"deleted"`
			Articles string `json:"articles"`
		}
		e.do("DELETE", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &del)
		if !del.Deleted || del.Articles != "kept" {
			t.Fatalf("delete answer %+v", del)
		}
		e.do("GET", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusNotFound)
		e.do("DELETE", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusNotFound)
	})
}

// setFailures marks a source as failed n times in a row and inactive, as
// the poller leaves a dead source.
func (e *env) setFailures(t *testing.T, sourceID int64, n int, active bool) {
	t.Helper()
	_, err := e.store.DB().Exec(e.store.DB().Rebind(`UPDATE feed_sources SET consecutive_failures = ?, is_active = ?,
		last_polled_status = 'error', last_polled_error = 'HTTP 500', next_poll_at = ? WHERE id = ?`),
		n, active, time.Now().UTC().Add(24*time.Hour), sourceID)
	if err != nil {
		t.Fatal(err)
	}
}

func TestReactivationResetsFailures(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "revive")
		for _, typ := range []string{"rss", "web", "api"} {
			t.Run(typ, func(t *testing.T) {
				u := map[string]string{"rss": "/feed.xml", "web": "/page.html", "api": "/api"}[typ]
				src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + u, "source_type": typ})
				e.setFailures(t, src.ID, model.MaxConsecutiveFailures, false)

				var got sourceJSON
				e.do("GET", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &got)
				if got.ConsecutiveFailures != 10 || got.Due || got.LastPolledError != "HTTP 500" {
					t.Fatalf("failed source %+v", got)
				}
				if n, _ := e.store.CountDue(context.Background()); n != 0 {
					t.Fatalf("%d sources due before reactivation", n)
				}

				e.do("PATCH", path("/%d/sources/%d", ws.ID, src.ID), e.admin, map[string]any{"is_active": true}).
					want(t, http.StatusOK).decode(t, &got)
				if got.ConsecutiveFailures != 0 || !got.IsActive || !got.Due {
					t.Fatalf("reactivated source: failures %d active %v due %v", got.ConsecutiveFailures, got.IsActive, got.Due)
				}
				claimed, err := e.store.ClaimDue(context.Background(), "test", 10, time.Minute)
				if err != nil || len(claimed) != 1 || claimed[0].ID != src.ID {
					t.Fatalf("reactivated source is not due for the scheduler: %v %+v", err, claimed)
				}
			})
		}
	})
}

func TestPatchActiveSourceKeepsFailures(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "keep")
		src := e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml"})
		e.setFailures(t, src.ID, 3, true)
		var got sourceJSON
		e.do("PATCH", path("/%d/sources/%d", ws.ID, src.ID), e.admin, map[string]any{"is_active": true}).
			want(t, http.StatusOK).decode(t, &got)
		if got.ConsecutiveFailures != 3 {
			t.Fatalf("is_active true on an active source reset failures to %d", got.ConsecutiveFailures)
		}
	})
}
