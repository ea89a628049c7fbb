package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

type articleJSON struct {
	ID             int64      `json:"id"`
	FeedSourceID   *int64     `json:"feed_source_id"`
	URL            string     `json:"url"`
	Title          string     `json:"title"`
	PublishedAt    *time.Time `json:"published_at"`
	RelevanceScore float64    `json:"relevance_score"`
	MatchedTerms   []string   `json:"matched_terms"`
}

type itemJSON struct {
	ID              int64    `json:"id"`
	Title           string   `json:"title"`
	ContentMarkdown string   `json:"content_markdown"`
	RelevanceScore  float64  `json:"relevance_score"`
	MatchedTerms    []string `json:"matched_terms"`
	Source          *struct {
		ID    int64  `json:"id"`
		URL   string `json:"url"`
		Title string `json:"title"`
	} `json:"source"`
}

type pageJSON[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// seedArticles stores n articles through the store, as a poll would: the
// i-th is published on 2024-01-(i+1), scores i/10, and every even one is
// promoted.
func (e *env) seedArticles(t testing.TB, wsID, sourceID int64, n int, prefix string) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.store.ClaimSource(ctx, wsID, sourceID, "seed", time.Minute); err != nil {
		t.Fatal(err)
	}
	var arts []model.NewArticle
	for i := 0; i < n; i++ {
		pub := time.Date(2024, 1, i+1, 12, 0, 0, 0, time.UTC)
		arts = append(arts, model.NewArticle{Promote: i%2 == 0, Article: model.FeedArticle{
			ExternalURL:     fmt.Sprintf("https://news.test/%s/%d", prefix, i),
			Title:           fmt.Sprintf("%s story %d", prefix, i),
			PublishedAt:     &pub,
			ContentMarkdown: fmt.Sprintf("# %s story %d\n\nBody about golang number %d.", prefix, i, i),
			ContentTextHash: fmt.Sprintf("%s-%d", prefix, i),
			RelevanceScore:  float64(i) / 10,
			MatchedTerms:    []string{"golang"},
		}})
	}
	_, err := e.store.SavePoll(ctx, model.PollSave{WorkspaceID: wsID, SourceID: sourceID, Owner: "seed", Articles: arts,
		Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now().Add(time.Hour)},
		Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: n}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestArticleListing(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "list")
		a := e.createSource(t, ws.ID, map[string]any{"url": "https://a.test/feed", "source_type": "api"})
		b := e.createSource(t, ws.ID, map[string]any{"url": "https://b.test/feed", "source_type": "api"})
		e.seedArticles(t, ws.ID, a.ID, 7, "alpha")
		e.seedArticles(t, ws.ID, b.ID, 3, "beta")

		list := func(q url.Values) pageJSON[articleJSON] {
			t.Helper()
			var p pageJSON[articleJSON]
			e.do("GET", path("/%d/articles?%s", ws.ID, q.Encode()), e.admin, nil).want(t, http.StatusOK).decode(t, &p)
			return p
		}

		// Cursor pagination walks everything once, newest first.
		seen := map[int64]bool{}
		var last int64 = 1 << 62
		q := url.Values{"limit": {"4"}}
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("pagination does not end")
			}
			p := list(q)
			for _, it := range p.Items {
				if seen[it.ID] || it.ID >= last {
					t.Fatalf("article %d repeated or out of order", it.ID)
				}
				seen[it.ID], last = true, it.ID
			}
			if p.NextCursor == nil {
				break
			}
			q.Set("cursor", *p.NextCursor)
		}
		if len(seen) != 10 {
			t.Fatalf("pagination saw %d of 10 articles", len(seen))
		}

		cases := []struct {
			name string
			q    url.Values
			want int
		}{
			{"source filter", url.Values{"source_id": {fmt.Sprint(b.ID)}}, 3},
			{"since date", url.Values{"since": {"2024-01-05"}}, 3},
			{"until date includes the day", url.Values{"until": {"2024-01-02"}}, 4},
			{"since RFC 3339", url.Values{"since": {"2024-01-07T00:00:00Z"}}, 1},
			{"min score", url.Values{"min_score": {"0.5"}}, 2},
			{"text query", url.Values{"q": {"BETA story"}}, 3},
			{"combined", url.Values{"source_id": {fmt.Sprint(a.ID)}, "since": {"2024-01-03"}, "until": {"2024-01-04"}}, 2},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if p := list(c.q); len(p.Items) != c.want || p.NextCursor != nil {
					t.Fatalf("%v: %d articles (next %v), want %d", c.q, len(p.Items), p.NextCursor, c.want)
				}
			})
		}
		p := list(url.Values{"source_id": {fmt.Sprint(a.ID)}, "limit": {"1"}})
		if p.Items[0].FeedSourceID == nil || *p.Items[0].FeedSourceID != a.ID || p.Items[0].MatchedTerms[0] != "golang" {
			t.Fatalf("article view %+v", p.Items[0])
		}
	})
}

func TestContentItems(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "items")
		src := e.createSource(t, ws.ID, map[string]any{"url": "https://a.test/feed", "source_type": "api", "title": "Source A"})
		e.seedArticles(t, ws.ID, src.ID, 6, "alpha") // promotes 0, 2, 4

		var p pageJSON[itemJSON]
		e.do("GET", path("/%d/content-items", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &p)
		if len(p.Items) != 3 || p.NextCursor != nil || p.Items[0].Title != "alpha story 4" {
			t.Fatalf("content items %+v", p)
		}
		e.do("GET", path("/%d/content-items?min_score=0.3&q=golang", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &p)
		if len(p.Items) != 1 {
			t.Fatalf("filtered content items %+v", p.Items)
		}

		var it itemJSON
		e.do("GET", path("/%d/content-items/%d", ws.ID, p.Items[0].ID), e.admin, nil).want(t, http.StatusOK).decode(t, &it)
		if it.ContentMarkdown == "" || it.RelevanceScore != 0.4 || len(it.MatchedTerms) != 1 || it.Source == nil ||
			it.Source.ID != src.ID || it.Source.Title != "Source A" {
			t.Fatalf("content item %+v", it)
		}

		// Deleting the source keeps articles and items, detached.
		e.do("DELETE", path("/%d/sources/%d", ws.ID, src.ID), e.admin, nil).want(t, http.StatusOK)
		e.do("GET", path("/%d/content-items/%d", ws.ID, it.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &it)
		if it.Source != nil || it.ContentMarkdown == "" {
			t.Fatalf("content item after its source was deleted %+v", it)
		}
		var arts pageJSON[articleJSON]
		e.do("GET", path("/%d/articles", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &arts)
		if len(arts.Items) != 6 || arts.Items[0].FeedSourceID != nil {
			t.Fatalf("articles after their source was deleted: %d, source %v", len(arts.Items), arts.Items[0].FeedSourceID)
		}

		e.do("GET", path("/%d/content-items/999999", ws.ID), e.admin, nil).want(t, http.StatusNotFound)
		e.do("GET", path("/%d/content-items/x", ws.ID), e.admin, nil).want(t, http.StatusNotFound)
	})
}

func TestListingBadQueries(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "badq")
		for _, c := range []struct{ query, field string }{
			{"limit=0", "limit"},
			{"limit=201", "limit"},
			{"limit=ten", "limit"},
			{"cursor=-3", "cursor"},
			{"cursor=abc", "cursor"},
			{"source_id=x", "source_id"},
			{"since=yesterday", "since"},
			{"until=2024-13-01", "until"},
			{"since=2024-02-01&until=2024-01-01", "until"},
			{"min_score=NaN", "min_score"},
			{"min_score=high", "min_score"},
			{"q=%00", "q"},
			{"q=-golang", "q"},      // only an exclusion: nothing to search for
			{"q=%21%21%20%2A", "q"}, // only punctuation
			{"q=a%2A", "q"},         // a one-letter prefix
			{"sourceid=1", "sourceid"},
		} {
			for _, list := range []string{"articles", "content-items"} {
				r := e.do("GET", path("/%d/%s?%s", ws.ID, list, c.query), e.admin, nil).want(t, http.StatusBadRequest)
				if eb := r.errBody(t); eb.Fields[c.field] == "" {
					t.Errorf("%s ?%s: fields %v, want %q named", list, c.query, eb.Fields, c.field)
				}
			}
		}
		e.do("GET", path("/999999/articles"), e.admin, nil).want(t, http.StatusNotFound)
		e.do("GET", path("/999999/content-items"), e.admin, nil).want(t, http.StatusNotFound)
	})
}
