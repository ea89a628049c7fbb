package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// TestKnownArticlesLookUpEachKey: in one big workspace among many small
// ones, the dedup lookup of a poll finds each URL through the workspace's
// URL key and each GUID through the source's GUID index, even in the plan
// a connection caches for any values, which prices a workspace at the
// average number of articles. That plan used to read every article of
// the workspace through another index and filter them by URL: 40 ms a
// poll in one workspace of 20 000 articles on PostgreSQL.
func TestKnownArticlesLookUpEachKey(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		// A thousand small workspaces of three articles each.
		others := `INSERT INTO workspaces (name) SELECT 'other-' || n FROM ` + series(s, "s", 1, 1000)
		if _, err := s.DB().ExecContext(ctx, others); err != nil {
			t.Fatalf("add the small workspaces: %v", err)
		}
		small := `INSERT INTO feed_articles (workspace_id, external_url, title, content_markdown)
			SELECT w.id, 'https://small.example/' || w.id || '/' || s.n, 'Title', 'Body'
			FROM workspaces w CROSS JOIN ` + series(s, "s", 1, 3) + ` WHERE w.name LIKE 'other-%'`
		if _, err := s.DB().ExecContext(ctx, small); err != nil {
			t.Fatalf("fill the small workspaces: %v", err)
		}
		fill := `INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, external_id, title, content_markdown)
			SELECT ?, CASE WHEN n % 2 = 0 THEN CAST(? AS BIGINT) ELSE CAST(? AS BIGINT) END, 'https://news.example/' || n, 'urn:item:' || n, 'Title', 'Body'
			FROM ` + series(s, "s", 1, 5000)
		if _, err := s.DB().ExecContext(ctx, s.DB().Rebind(fill), ws.ID, srcs[0].ID, srcs[1].ID); err != nil {
			t.Fatalf("fill the workspace's articles: %v", err)
		}
		if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
			t.Fatal(err)
		}
		var urls, guids []string
		for i := range 20 {
			urls = append(urls, fmt.Sprintf("https://news.example/%d", 4000+i))
			if i%2 == 0 {
				guids = append(guids, fmt.Sprintf("urn:item:%d", 4000+i)) // the first source's
			}
		}
		plan, err := s.ExplainKnownArticles(ctx, ws.ID, srcs[0].ID, urls, guids)
		if err != nil {
			t.Fatal(err)
		}
		byURL := strings.Contains(plan, "feed_articles_workspace_id_external_url_revision_key") ||
			strings.Contains(plan, "USING INDEX sqlite_autoindex_feed_articles_1 (workspace_id=? AND external_url=?)")
		if !byURL || !strings.Contains(plan, "feed_articles_source_guid") || strings.Contains(plan, "Filter") ||
			strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "SCAN feed_articles") {
			t.Errorf("the dedup lookup does not look each URL and GUID up by its key:\n%s", plan)
		}
		// And it finds what is there: the URLs of both sources, the GUIDs
		// of the source asked for.
		known, err := s.KnownArticles(ctx, ws.ID, srcs[0].ID, append(urls[:len(urls):len(urls)], "https://news.example/none"),
			append(guids[:len(guids):len(guids)], "urn:item:4001"))
		if err != nil {
			t.Fatal(err)
		}
		if len(known.ByURL) != len(urls) || len(known.GUIDs) != len(guids) {
			t.Errorf("found %d URLs and %d GUIDs, want %d and %d", len(known.ByURL), len(known.GUIDs), len(urls), len(guids))
		}
		for _, u := range urls {
			if a, ok := known.ByURL[u]; !ok || a.ExternalURL != u {
				t.Errorf("URL %s not found as itself: %+v", u, a)
			}
		}
		// Either list may be empty, and a URL asked twice is found once.
		byGUID, err := s.KnownArticles(ctx, ws.ID, srcs[0].ID, nil, guids)
		if err != nil {
			t.Fatal(err)
		}
		if len(byGUID.GUIDs) != len(guids) {
			t.Errorf("GUIDs alone: found %d, want %d", len(byGUID.GUIDs), len(guids))
		}
		once, err := s.KnownArticles(ctx, ws.ID, srcs[0].ID, []string{urls[0], urls[0]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(once.ByURL) != 1 || len(once.GUIDs) != 0 {
			t.Errorf("one URL asked twice: found %d URLs and %d GUIDs, want 1 and 0", len(once.ByURL), len(once.GUIDs))
		}
	})
}
