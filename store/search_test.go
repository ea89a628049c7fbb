package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/textquery"
)

// searchCorpus is the fixture of search quality: articles and queries
// whose relevant articles are known.
type searchCorpus struct {
	Articles []struct {
		Key, Title, Summary, Body string
	}
	Queries []struct {
		Query    string
		Relevant []string
	}
}

func loadCorpus(t *testing.T) searchCorpus {
	t.Helper()
	b, err := os.ReadFile("testdata/search_corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c searchCorpus
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// saveThroughPoll stores articles the way a poll does (SavePoll, so the
// index is kept by the save path itself) and returns their ids by URL.
func saveThroughPoll(t *testing.T, s *store.Store, ws *model.Workspace, src *model.FeedSource, arts []model.NewArticle) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := s.ClaimSource(ctx, ws.ID, src.ID, "me", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: src.ID, Owner: "me", Articles: arts,
		Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now().Add(time.Hour)},
		Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: len(arts)}}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for cursor := int64(0); ; {
		page, err := s.ListArticles(ctx, ws.ID, model.ListFilter{Cursor: cursor, Limit: model.MaxPageSize})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			return ids
		}
		for _, a := range page {
			ids[a.ExternalURL] = a.ID
		}
		cursor = page[len(page)-1].ID
	}
}

// seedCorpus stores the fixture in a workspace of its own; keys map to
// article ids.
func seedCorpus(t *testing.T, s *store.Store, c searchCorpus) (*model.Workspace, *model.FeedSource, map[string]int64) {
	t.Helper()
	ws, srcs := seed(t, s, "https://corpus.example/feed")
	arts := make([]model.NewArticle, len(c.Articles))
	for i, a := range c.Articles {
		arts[i] = model.NewArticle{Article: model.FeedArticle{ExternalURL: "https://corpus.example/" + a.Key, Title: a.Title,
			Summary: a.Summary, ContentMarkdown: a.Body, ContentTextHash: a.Key, RelevanceScore: float64(i%10) / 10},
			Promote: i%2 == 0}
	}
	byURL := saveThroughPoll(t, s, ws, srcs[0], arts)
	keys := map[string]int64{}
	for _, a := range c.Articles {
		keys[a.Key] = byURL["https://corpus.example/"+a.Key]
	}
	return ws, srcs[0], keys
}

func search(t *testing.T, s *store.Store, wsID int64, query string, f model.SearchFilter) []model.SearchHit {
	t.Helper()
	f.Query = query
	hits, err := s.Search(context.Background(), wsID, f)
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	return hits
}

// TestSearchQualityFloor: the precision of the top 5 results (relevant
// results among the first five, over the relevant articles that fit in
// five) over the fixture's queries, on both databases. The figure is in
// docs/mcp.md.
func TestSearchQualityFloor(t *testing.T) {
	c := loadCorpus(t)
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, _, keys := seedCorpus(t, s, c)
		names := map[int64]string{}
		for k, id := range keys {
			names[id] = k
		}
		total := 0.0
		for _, q := range c.Queries {
			hits := search(t, s, ws.ID, q.Query, model.SearchFilter{Limit: 5})
			relevant := map[string]bool{}
			for _, k := range q.Relevant {
				relevant[k] = true
			}
			found := 0
			var got []string
			for _, h := range hits {
				got = append(got, names[h.ID])
				if relevant[names[h.ID]] {
					found++
				}
			}
			p := float64(found) / float64(min(5, len(q.Relevant)))
			total += p
			t.Logf("P@5 %.2f  %-32s %v", p, q.Query, got)
		}
		mean := total / float64(len(c.Queries))
		t.Logf("mean precision of the top 5 on %s: %.3f over %d queries", s.Dialect(), mean, len(c.Queries))
		if mean < 0.9 {
			t.Errorf("mean P@5 %.3f, want at least 0.9", mean)
		}
	})
}

// TestSearchSyntaxAndFilters: phrases, prefixes, exclusions and OR behave
// as in a search box, filters narrow, snippets highlight, another
// workspace's articles never show, on both databases.
func TestSearchSyntaxAndFilters(t *testing.T) {
	c := loadCorpus(t)
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, src, keys := seedCorpus(t, s, c)
		ids := func(hits []model.SearchHit) map[int64]bool {
			m := map[int64]bool{}
			for _, h := range hits {
				m[h.ID] = true
			}
			return m
		}
		cases := []struct {
			query       string
			want, never []string
		}{
			{`"release candidate"`, []string{"go-release-candidate"}, []string{"go-release"}},
			{`autoscal*`, []string{"k8s-autoscale"}, nil},
			{`vuln*`, []string{"cve-openssl"}, []string{"cve-xz"}},
			{`garbage -rust`, []string{"go-gc"}, []string{"rust-go-compare"}},
			{`goalkeeper OR striker`, []string{"football-final", "football-transfer"}, nil},
			{`released`, []string{"pg-release", "python-release"}, nil}, // stemmed: release, released
			{`zebra`, nil, []string{"go-release"}},
		}
		for _, tc := range cases {
			got := ids(search(t, s, ws.ID, tc.query, model.SearchFilter{Limit: 50}))
			for _, k := range tc.want {
				if !got[keys[k]] {
					t.Errorf("%s: %s not found", tc.query, k)
				}
			}
			for _, k := range tc.never {
				if got[keys[k]] {
					t.Errorf("%s: %s found, must not be", tc.query, k)
				}
			}
		}

		hits := search(t, s, ws.ID, "tsvector", model.SearchFilter{})
		if len(hits) != 1 || hits[0].ID != keys["pg-fts"] || !strings.Contains(hits[0].Snippet, "**tsvector**") ||
			hits[0].Summary == "" || hits[0].URL != "https://corpus.example/pg-fts" || hits[0].SourceID == nil || *hits[0].SourceID != src.ID {
			t.Fatalf("tsvector: %+v, want pg-fts with the match highlighted in its snippet", hits)
		}
		if hits[0].ContentItemID == nil {
			t.Errorf("pg-fts was promoted; its hit has no content item id")
		}

		// Filters: relevance, source, time.
		minRel := 0.5
		for _, h := range search(t, s, ws.ID, "release", model.SearchFilter{MinRelevance: &minRel, Limit: 50}) {
			if h.Relevance < minRel {
				t.Errorf("min relevance 0.5: got %v", h.Relevance)
			}
		}
		if hits := search(t, s, ws.ID, "release", model.SearchFilter{SourceID: src.ID + 1000}); len(hits) != 0 {
			t.Errorf("another source: %d hits", len(hits))
		}
		future := time.Now().Add(time.Hour)
		if hits := search(t, s, ws.ID, "release", model.SearchFilter{Since: &future}); len(hits) != 0 {
			t.Errorf("since the future: %d hits", len(hits))
		}

		// The workspace the SQLite index keeps as a token is not text.
		if hits := search(t, s, ws.ID, fmt.Sprintf("w%d", ws.ID), model.SearchFilter{}); len(hits) != 0 {
			t.Errorf("the workspace's token as a query: %d hits, want none", len(hits))
		}

		// Another workspace sees none of it.
		other, _ := s.CreateWorkspace(context.Background(), "other-"+t.Name(), model.RelevanceProfile{})
		if hits := search(t, s, other.ID, "release", model.SearchFilter{}); len(hits) != 0 {
			t.Errorf("another workspace: %d hits", len(hits))
		}

		// The listings' q= goes through the same index.
		arts, err := s.ListArticles(context.Background(), ws.ID, model.ListFilter{Query: `"release candidate" -kubernetes`})
		if err != nil || len(arts) != 1 || arts[0].ID != keys["go-release-candidate"] {
			t.Errorf("listing q=: %d articles, %v", len(arts), err)
		}
		items, err := s.ListContentItems(context.Background(), ws.ID, model.ListFilter{Query: "tsvector OR BM25"})
		if err != nil || len(items) != 1 { // pg-fts is promoted, sqlite-fts5 is not
			t.Errorf("content items q=: %d, %v", len(items), err)
		}
		_, err = s.ListArticles(context.Background(), ws.ID, model.ListFilter{Query: "-only"})
		var qe *textquery.Error
		if !errors.As(err, &qe) {
			t.Errorf("listing with an exclusion only: %v, want a *textquery.Error", err)
		}
	})
}

// TestSearchSurvivesHostileQueries: whatever Parse accepts, neither
// engine raises an error on it.
func TestSearchSurvivesHostileQueries(t *testing.T) {
	queries := []string{`"`, `""go""`, `go*"*`, `NEAR(go rust, 2)`, `title:go`, `go AND OR NOT rust`, `(go`, `go)`,
		`{go rust}`, `^go`, `go:*`, `go & rust | !x`, `'go'`, `go\`, `\"`, `<->`, `go <-> rust`, `-"`, `--go`, `go--`,
		`ünïcödé café`, `日本語`, `x:* & y`, `a1b2*`, `3d*`, `e-mail`, `c++`, `:*`, `OR OR OR go`, `go -"a b" -c*`,
		`the`, `the*`, `a an the of`, `-- go`, `__init__*`, `ªº*`}
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://hostile.example/feed")
		saveThroughPoll(t, s, ws, srcs[0], []model.NewArticle{article("https://hostile.example/1", "h1", true)})
		for _, in := range queries {
			if _, err := textquery.Parse(in); err != nil {
				continue
			}
			if _, err := s.Search(context.Background(), ws.ID, model.SearchFilter{Query: in}); err != nil {
				t.Errorf("search %q: %v", in, err)
			}
			if _, err := s.ListContentItems(context.Background(), ws.ID, model.ListFilter{Query: in}); err != nil {
				t.Errorf("listing q=%q: %v", in, err)
			}
		}
	})
}

// TestSearchIndexFollowsEdits: the index follows an article's text when
// it changes and forgets it when the article is deleted.
func TestSearchIndexFollowsEdits(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://edit.example/feed")
		ids := saveThroughPoll(t, s, ws, srcs[0], []model.NewArticle{article("https://edit.example/1", "e1", true)})
		id := ids["https://edit.example/1"]
		if _, err := s.DB().ExecContext(ctx, s.DB().Rebind(`UPDATE feed_articles SET content_markdown = ? WHERE id = ?`), "quokka sighting", id); err != nil {
			t.Fatal(err)
		}
		// On PostgreSQL the daemon computes the vector: an edit by hand
		// leaves it to IndexSearchText, which serve runs hourly.
		if n, err := s.IndexSearchText(ctx); err != nil || n != map[string]int64{store.Postgres: 1, store.SQLite: 0}[s.Dialect()] {
			t.Fatalf("IndexSearchText after an edit: %d, %v", n, err)
		}
		if hits := search(t, s, ws.ID, "quokka", model.SearchFilter{}); len(hits) != 1 {
			t.Errorf("after an edit: %d hits for the new word", len(hits))
		}
		if hits := search(t, s, ws.ID, "body", model.SearchFilter{}); len(hits) != 0 {
			t.Errorf("after an edit: %d hits for the old word", len(hits))
		}
		if _, err := s.DB().ExecContext(ctx, fmt.Sprintf(`DELETE FROM feed_articles WHERE id = %d`, id)); err != nil {
			t.Fatal(err)
		}
		if hits := search(t, s, ws.ID, "quokka", model.SearchFilter{}); len(hits) != 0 {
			t.Errorf("after a delete: %d hits", len(hits))
		}
	})
}
