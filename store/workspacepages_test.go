package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// TestItemRefsReadOneWorkspacesRange: a page of one workspace's content
// items (the MCP resource list) is a range of content_items_ws_id, on
// both databases and in the plan a connection caches for any workspace.
// Asked with "? = 0 OR workspace_id = ?", which no index serves, it read
// every workspace's newer items through the primary key first.
func TestItemRefsReadOneWorkspacesRange(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		// The workspace asked for is created first, so its items are the
		// oldest, among a thousand small workspaces and a big one.
		small, _ := seedNamed(t, s, "small")
		big, _ := seedNamed(t, s, "big")
		others := `INSERT INTO workspaces (name) SELECT 'other-' || n FROM ` + series(s, "s", 1, 1000)
		if _, err := s.DB().ExecContext(ctx, others); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			which string
			items int
		}{{"w.name = 'small'", 3}, {"w.name LIKE 'other-%'", 3}, {"w.name = 'big'", 3000}} {
			articles := `INSERT INTO feed_articles (workspace_id, external_url, title, content_markdown)
				SELECT w.id, 'https://' || w.name || '.example/' || s.n, 'Title', 'Body'
				FROM workspaces w CROSS JOIN ` + series(s, "s", 1, f.items) + ` WHERE ` + f.which + ` ORDER BY w.id, s.n`
			if _, err := s.DB().ExecContext(ctx, articles); err != nil {
				t.Fatalf("articles of %s: %v", f.which, err)
			}
		}
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO content_items (workspace_id, feed_article_id, url, content_text_hash)
			SELECT workspace_id, id, external_url, external_url FROM feed_articles ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
			t.Fatal(err)
		}
		for _, cursor := range []int64{0, 1 << 40} {
			plan, err := s.ExplainItemRefs(ctx, small.ID, cursor, 50)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan, "content_items_ws_id") {
				t.Errorf("cursor %d: a workspace's page is not read through content_items_ws_id:\n%s", cursor, plan)
			}
		}
		refs, err := s.ListItemRefs(ctx, small.ID, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) != 2 || refs[0].URL != "https://small.example/3" || refs[1].URL != "https://small.example/2" {
			t.Fatalf("first page %+v, want the small workspace's two newest items", refs)
		}
		more, err := s.ListItemRefs(ctx, small.ID, refs[1].ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(more) != 1 || more[0].URL != "https://small.example/1" {
			t.Errorf("second page %+v, want the small workspace's oldest item", more)
		}
		all, err := s.ListItemRefs(ctx, 0, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 10 || all[0].WorkspaceID != big.ID {
			t.Errorf("every workspace's first page %+v, want the big workspace's newest ten", all)
		}
	})
}

// TestListSourcesReadsOneWorkspace: one workspace's sources are found
// through the workspace's key, on both databases and in the plan a
// connection caches for any workspace, among a thousand workspaces of
// five sources each; they used to be found by reading every workspace's
// sources.
func TestListSourcesReadsOneWorkspace(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seedNamed(t, s, "asked", "https://a.example/feed", "https://b.example/feed")
		others := `INSERT INTO workspaces (name) SELECT 'other-' || n FROM ` + series(s, "s", 1, 1000)
		if _, err := s.DB().ExecContext(ctx, others); err != nil {
			t.Fatal(err)
		}
		sources := `INSERT INTO feed_sources (workspace_id, url)
			SELECT w.id, 'https://' || w.name || '.example/' || s.n FROM workspaces w CROSS JOIN ` + series(s, "s", 1, 5) +
			` WHERE w.name LIKE 'other-%'`
		if _, err := s.DB().ExecContext(ctx, sources); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
			t.Fatal(err)
		}
		plan, err := s.ExplainListSources(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "SCAN feed_sources") || strings.Contains(plan, "Seq Scan on feed_sources") {
			t.Errorf("one workspace's sources are found by reading every workspace's:\n%s", plan)
		}
		got, err := s.ListSources(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].URL != "https://a.example/feed" || got[1].URL != "https://b.example/feed" {
			t.Errorf("listed %+v, want the workspace's two sources, oldest first", got)
		}
		all, err := s.ListSources(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 5002 {
			t.Errorf("listed %d sources of every workspace, want 5002", len(all))
		}
	})
}
