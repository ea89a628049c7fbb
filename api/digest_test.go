package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/storyfeeds"
)

// storyWorld serves three outlets of the labelled story set, six events
// re-dated into the last 12 hours, creates a workspace with one source per
// outlet (the first set to tier 2 by hand) and polls each through the real
// poller.
func storyWorld(t *testing.T, e *env) (ws workspaceJSON, srcs []sourceJSON) {
	t.Helper()
	all, err := storyfeeds.Load("../analysis/stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	events := storyfeeds.Events(all)[:6]
	arts := storyfeeds.Redate(all, events, 12*time.Hour, time.Now().Add(-time.Hour))
	h, err := storyfeeds.Handler(arts, nil)
	if err != nil {
		t.Fatal(err)
	}
	farm := httptest.NewServer(h)
	t.Cleanup(farm.Close)
	ws = e.createWorkspace(t, "world")
	for i, outlet := range []string{"Newswire", "The Daily Ledger", "Metro Post"} {
		body := map[string]any{"url": farm.URL + storyfeeds.FeedPath(outlet)}
		if i == 0 {
			body["reliability_tier"] = 2
		}
		src := e.createSource(t, ws.ID, body)
		var out struct {
			Status   string `json:"status"`
			ItemsNew int    `json:"items_new"`
		}
		e.do("POST", path("/%d/sources/%d/poll", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &out)
		if out.Status != "ok" || out.ItemsNew == 0 {
			t.Fatalf("poll of %s: %+v", outlet, out)
		}
		srcs = append(srcs, src)
	}
	return ws, srcs
}

type digestJSON struct {
	Metadata struct {
		Workspace struct {
			ID int64 `json:"id"`
		} `json:"workspace"`
		SourcesAnalyzed int `json:"sources_analyzed"`
		StoryCount      int `json:"story_count"`
	} `json:"metadata"`
	Stories []struct {
		ID          int64  `json:"id"`
		Title       string `json:"title"`
		Summary     string `json:"summary"`
		SourceCount int    `json:"source_count"`
		Citations   []int  `json:"citations"`
		Sources     []struct {
			URL             string `json:"url"`
			ReliabilityTier int    `json:"reliability_tier"`
			First           bool   `json:"first"`
		} `json:"sources"`
	} `json:"stories"`
	Sources []struct {
		Citation int    `json:"citation"`
		URL      string `json:"url"`
	} `json:"sources"`
	Note string `json:"note"`
}

// TestDigestEndpoint: three outlets carrying the same events give a
// digest whose stories group their copies, with citations of real URLs;
// each format answers with its media type; a workspace token sees only
// its workspace; bad parameters are 400s naming them; an empty window is
// a digest that says so.
func TestDigestEndpoint(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws, _ := storyWorld(t, e)
		digestPath := path("/%d/digest", ws.ID)

		r := e.do("GET", digestPath+"?format=json", e.admin, nil).want(t, http.StatusOK)
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("json digest as %q", ct)
		}
		var d digestJSON
		r.decode(t, &d)
		if d.Metadata.Workspace.ID != ws.ID || d.Metadata.SourcesAnalyzed != 3 || d.Metadata.StoryCount != len(d.Stories) || len(d.Stories) < 4 {
			t.Fatalf("digest metadata %+v with %d stories", d.Metadata, len(d.Stories))
		}
		multi := 0
		for _, s := range d.Stories {
			if s.Title == "" || s.Summary == "" || len(s.Citations) == 0 || len(s.Citations) != len(s.Sources) {
				t.Errorf("story %d: %+v", s.ID, s)
			}
			if s.SourceCount > 1 {
				multi++
			}
			for _, src := range s.Sources {
				if !strings.HasPrefix(src.URL, "https://") || strings.Contains(src.URL, "127.0.0.1") {
					t.Errorf("story %d cites %q, want the article's own URL", s.ID, src.URL)
				}
				if want := map[bool]int{true: 2, false: 5}[strings.HasPrefix(src.URL, "https://newswire.example/")]; src.ReliabilityTier != want {
					t.Errorf("%s: tier %d, want %d", src.URL, src.ReliabilityTier, want)
				}
			}
		}
		if multi < 3 {
			t.Errorf("%d stories carried by several outlets, want the syndicated events grouped", multi)
		}

		md := e.do("GET", digestPath+"?since=24h", e.admin, nil).want(t, http.StatusOK)
		if ct := md.header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" || !strings.HasPrefix(string(md.body), "# Digest: world") {
			t.Errorf("markdown digest %q: %.80s", ct, md.body)
		}
		compact := e.do("GET", digestPath+"?format=compact&max_tokens=200", e.admin, nil).want(t, http.StatusOK)
		if ct := compact.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" || !strings.Contains(string(compact.body), "https://") {
			t.Errorf("compact digest %q: %s", ct, compact.body)
		}

		// A workspace token reads its own digest; another workspace's is a 404.
		tok := e.workspaceToken(t, ws.ID)
		e.do("GET", digestPath, tok, nil).want(t, http.StatusOK)
		other := e.createWorkspace(t, "other")
		e.do("GET", path("/%d/digest", other.ID), tok, nil).want(t, http.StatusNotFound)
		e.do("GET", path("/%d/digest", 9999), e.admin, nil).want(t, http.StatusNotFound)
		e.call(call{method: "GET", path: digestPath}).want(t, http.StatusUnauthorized)

		for _, tc := range []struct {
			query, field, words string
		}{
			{"format=xml", "format", `format "xml" is unknown: accepted formats are markdown, json and compact`},
			{"format=compact&max_tokens=3", "max_tokens", "max_tokens 3 is below the"},
			{"max_tokens=many", "max_tokens", "positive whole number"},
			{"since=yesterday", "since", "neither a duration"},
			{"until=later", "until", "until"},
			{"since=2h&until=2020-01-01T00:00:00Z&window=1", "window", "not a known query parameter"},
		} {
			eb := e.do("GET", digestPath+"?"+tc.query, e.admin, nil).want(t, http.StatusBadRequest).errBody(t)
			if eb.Fields[tc.field] == "" || !strings.Contains(eb.Error, tc.words) {
				t.Errorf("%s: %+v, want %s named with %q", tc.query, eb, tc.field, tc.words)
			}
		}

		// A window with nothing in it: a valid digest saying so, in each format.
		empty := digestPath + "?since=2020-01-01&until=2020-01-02"
		var none digestJSON
		e.do("GET", empty+"&format=json", e.admin, nil).want(t, http.StatusOK).decode(t, &none)
		if len(none.Stories) != 0 || !strings.HasPrefix(none.Note, "no stories in this window: none of the ") {
			t.Errorf("empty window: %+v", none)
		}
		if md := e.do("GET", empty, e.admin, nil).want(t, http.StatusOK); !strings.Contains(string(md.body), "No stories in this window") {
			t.Errorf("empty markdown digest: %s", md.body)
		}
		if c := e.do("GET", empty+"&format=compact", e.admin, nil).want(t, http.StatusOK); !strings.Contains(string(c.body), "No stories in this window: none of the ") {
			t.Errorf("empty compact digest: %s", c.body)
		}
	}, withRealPoller(&syncBuffer{}))
}

// TestRankListingsAndSettings: sources take tiers from the domain rules
// or by hand, decay classes from the workspace or their own; listings
// sorted by rank put the reliable, fresh, relevant items first and page
// by position; sort=recent is the default; a bad sort is a 400.
func TestRankListingsAndSettings(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws, srcs := storyWorld(t, e)
		var src struct {
			ReliabilityTier       int     `json:"reliability_tier"`
			ReliabilityTierManual bool    `json:"reliability_tier_manual"`
			DecayClass            *string `json:"decay_class"`
		}
		e.do("GET", path("/%d/sources/%d", ws.ID, srcs[0].ID), e.admin, nil).want(t, http.StatusOK).decode(t, &src)
		if src.ReliabilityTier != 2 || !src.ReliabilityTierManual || src.DecayClass != nil {
			t.Fatalf("source set to tier 2: %+v", src)
		}
		e.do("PATCH", path("/%d/sources/%d", ws.ID, srcs[1].ID), e.admin, map[string]any{"reliability_tier": 1, "decay_class": "stable"}).
			want(t, http.StatusOK).decode(t, &src)
		if src.ReliabilityTier != 1 || !src.ReliabilityTierManual || src.DecayClass == nil || *src.DecayClass != "stable" {
			t.Fatalf("after PATCH: %+v", src)
		}
		e.do("PATCH", path("/%d/sources/%d", ws.ID, srcs[1].ID), e.admin, map[string]any{"reliability_tier": 0, "decay_class": ""}).
			want(t, http.StatusOK).decode(t, &src)
		if src.ReliabilityTier != 5 || src.ReliabilityTierManual || src.DecayClass != nil {
			t.Fatalf("back to the rules and the workspace: %+v", src)
		}
		eb := e.do("PATCH", path("/%d/sources/%d", ws.ID, srcs[1].ID), e.admin, map[string]any{"reliability_tier": 9}).
			want(t, http.StatusBadRequest).errBody(t)
		if eb.Fields["reliability_tier"] == "" {
			t.Errorf("tier 9: %+v", eb)
		}
		var wsOut struct {
			DecayClass string `json:"decay_class"`
		}
		e.do("PATCH", path("/%d", ws.ID), e.admin, map[string]any{"decay_class": "fast"}).want(t, http.StatusOK).decode(t, &wsOut)
		if wsOut.DecayClass != "fast" {
			t.Fatalf("workspace decay class %q", wsOut.DecayClass)
		}
		e.do("PATCH", path("/%d", ws.ID), e.admin, map[string]any{"decay_class": "hourly"}).want(t, http.StatusBadRequest)

		type item struct {
			ID           int64   `json:"id"`
			Rank         float64 `json:"rank"`
			FeedSourceID *int64  `json:"feed_source_id"`
			Source       *struct {
				ID int64 `json:"id"`
			} `json:"source"`
			StoryID *int64 `json:"story_id"`
		}
		var pg struct {
			Items      []item  `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		for _, kind := range []string{"articles", "content-items"} {
			base := path("/%d/%s?sort=rank&limit=5", ws.ID, kind)
			e.do("GET", base, e.admin, nil).want(t, http.StatusOK).decode(t, &pg)
			if len(pg.Items) != 5 || pg.NextCursor == nil || *pg.NextCursor != "5" {
				t.Fatalf("%s by rank: %d items, cursor %v", kind, len(pg.Items), pg.NextCursor)
			}
			first := slices.Clone(pg.Items)
			for i, it := range first {
				if it.StoryID == nil || it.Rank <= 0 || i > 0 && it.Rank > first[i-1].Rank {
					t.Errorf("%s by rank, item %d: %+v", kind, i, it)
				}
				srcID := it.FeedSourceID
				if it.Source != nil {
					srcID = &it.Source.ID
				}
				if srcID == nil || *srcID != srcs[0].ID {
					t.Errorf("%s by rank, item %d from source %v: want the tier-2 source's items first", kind, i, srcID)
				}
			}
			e.do("GET", base+"&cursor=5", e.admin, nil).want(t, http.StatusOK).decode(t, &pg)
			if len(pg.Items) == 0 || pg.Items[0].Rank > first[4].Rank || pg.Items[0].ID == first[4].ID {
				t.Errorf("%s page 2 by rank: %+v", kind, pg.Items)
			}
			var recent struct {
				Items []json.RawMessage `json:"items"`
			}
			e.do("GET", path("/%d/%s?sort=recent&limit=5", ws.ID, kind), e.admin, nil).want(t, http.StatusOK).decode(t, &recent)
			if len(recent.Items) != 5 || strings.Contains(string(recent.Items[0]), `"rank"`) {
				t.Errorf("%s by recency: %s", kind, recent.Items)
			}
			if eb := e.do("GET", path("/%d/%s?sort=best", ws.ID, kind), e.admin, nil).want(t, http.StatusBadRequest).errBody(t); eb.Fields["sort"] == "" {
				t.Errorf("sort=best: %+v", eb)
			}
		}
	}, withRealPoller(&syncBuffer{}))
}
