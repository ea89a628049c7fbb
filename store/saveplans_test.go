package store_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// archivedRead is a plan line that reads a table holding a workspace's
// archive (or one of its indexes), with what it seeks by.
var archivedRead = regexp.MustCompile(`^(SCAN|SEARCH) (feed_articles|content_items|stories|story_terms|story_doc_freq)\b(.*)$`)

// TestSQLiteSaveStatementsSeekByKey: every statement of a poll's save on
// SQLite, placement and re-examination's moves and merges included,
// reads the rows of the archive's tables it touches by a key narrower
// than the workspace: none reads a table whole, or the workspace's part
// of it, whose cost would grow with the workspace's archive. Without
// statistics (no ANALYZE has run, as in the daemon's databases) SQLite
// plans from its index heuristics alone, so the plans do not depend on
// the rows stored here.
func TestSQLiteSaveStatementsSeekByKey(t *testing.T) {
	ctx := context.Background()
	// One connection: every statement the store runs is prepared, and
	// kept, on it.
	s := openWith(t, store.SQLite, store.Options{MaxOpenConns: 1})
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seedArchived(t, s, 1, t0)
	ran := reexaminedStatements(t, s, ws, srcs[0], t0)
	checked := 0
	for q := range ran {
		plan, err := s.ExplainUnbound(ctx, q)
		if err != nil {
			t.Fatalf("plan of %s: %v", q, err)
		}
		for line := range strings.SplitSeq(plan, "\n") {
			m := archivedRead.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil {
				continue
			}
			checked++
			if m[1] == "SCAN" || strings.HasSuffix(m[3], "(workspace_id=?)") {
				t.Errorf("a save's statement reads %s by no key narrower than the workspace (%s):\n%s\n%s", m[2], line, q, plan)
			}
		}
	}
	t.Logf("%d statements of the saves, %d plan lines reading the archive's tables", len(ran), checked)
	if checked < 10 {
		t.Errorf("%d plan lines read the archive's tables in %d statements, want at least 10: the saves ran too little", checked, len(ran))
	}
}

// pgScan is a plan line of PostgreSQL that reads a table or one of its
// indexes, and pgIndexCond the condition such a node seeks by.
var (
	pgScan      = regexp.MustCompile(`(Seq Scan|Index Scan Backward|Index Scan|Index Only Scan Backward|Index Only Scan|Bitmap Index Scan)(?: using| on) (\w+)(?: on (\w+))?`)
	pgIndexCond = regexp.MustCompile(`^Index Cond: (.*)$`)
)

// TestPostgresSaveStatementsSeekByKey is TestSQLiteSaveStatementsSeekByKey
// on PostgreSQL, in the plans a connection caches for any values (the
// generic plans), with the saves' workspace big among a thousand small
// ones: such a plan prices a workspace at the average, so a statement
// whose only key is the workspace reads it whole. Every scan of the
// archive's tables must seek by an index whose leading columns it
// constrains beyond the workspace; no table is read in sequence.
func TestPostgresSaveStatementsSeekByKey(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, store.Postgres, store.Options{MaxOpenConns: 1}) // one connection, as above
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seedArchived(t, s, 1, t0)
	// The archive: a thousand small workspaces and 5 000 articles of the
	// saves' own, with their stories, content items, term index entries
	// and document frequencies, all a year older than the saves'
	// reports, so that no decision of the saves changes.
	old := t0.AddDate(-1, 0, 0)
	for _, f := range []struct {
		q    string
		args []any
	}{
		{`INSERT INTO workspaces (name) SELECT 'other-' || n FROM generate_series(1, 1000) n`, nil},
		{`INSERT INTO feed_articles (workspace_id, external_url, title, content_markdown, reported_at, created_at)
			SELECT w.id, 'https://small.example/' || w.id || '/' || s.n, 'Title', 'Body', $1::timestamptz, $1::timestamptz
			FROM workspaces w CROSS JOIN generate_series(1, 3) s(n) WHERE w.name LIKE 'other-%'`, []any{old}},
		{`INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, title, content_markdown, reported_at, created_at)
			SELECT $2, $3, 'https://archive.example/' || n, 'Title', 'Body', $1::timestamptz - n * interval '1 minute', $1::timestamptz
			FROM generate_series(1, 5000) n`, []any{old, ws.ID, srcs[1].ID}},
		{`INSERT INTO stories (workspace_id, first_article_id, first_reported_at, last_reported_at)
			SELECT workspace_id, id, reported_at, reported_at FROM feed_articles WHERE reported_at <= $1::timestamptz ORDER BY id`, []any{old}},
		{`UPDATE feed_articles a SET story_id = s.id FROM stories s WHERE s.first_article_id = a.id`, nil},
		{`INSERT INTO content_items (workspace_id, feed_article_id, url, content_text_hash, story_id)
			SELECT workspace_id, id, external_url, external_url, story_id FROM feed_articles WHERE reported_at <= $1::timestamptz ORDER BY id`, []any{old}},
		{`INSERT INTO story_terms (workspace_id, term, reported_unix, feed_article_id, story_id)
			SELECT a.workspace_id, hashint4(a.id::int * 16 + k), FLOOR(EXTRACT(EPOCH FROM a.reported_at))::bigint, a.id, a.story_id
			FROM feed_articles a CROSS JOIN generate_series(1, 12) k WHERE a.reported_at <= $1::timestamptz ON CONFLICT DO NOTHING`, []any{old}},
		{`INSERT INTO story_doc_freq (workspace_id, period, term, shard, docs)
			SELECT DISTINCT t.workspace_id, FLOOR(t.reported_unix / 604800.0)::integer, t.term, 0, 1 FROM story_terms t
			WHERE t.reported_unix <= EXTRACT(EPOCH FROM $1::timestamptz) ON CONFLICT DO NOTHING`, []any{old}},
	} {
		if _, err := s.DB().ExecContext(ctx, f.q, f.args...); err != nil {
			t.Fatalf("%s: %v", f.q, err)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	// Each index's columns, to tell what a scan seeks by.
	columns := map[string][]string{}
	var idx []struct {
		Name string `db:"name"`
		Cols string `db:"cols"`
	}
	if err := s.DB().SelectContext(ctx, &idx, `SELECT i.relname AS name, string_agg(a.attname, ',' ORDER BY k.n) AS cols
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
		CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
		JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
		GROUP BY i.relname`); err != nil {
		t.Fatal(err)
	}
	for _, i := range idx {
		columns[i.Name] = strings.Split(i.Cols, ",")
	}
	ran := reexaminedStatements(t, s, ws, srcs[0], t0)
	archive := map[string]bool{"feed_articles": true, "content_items": true, "stories": true, "story_terms": true, "story_doc_freq": true}
	checked := 0
	for q := range ran {
		plan, err := s.ExplainGeneric(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(plan, "\n")
		for i, line := range lines {
			m := pgScan.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			kind, name, table := m[1], m[2], m[3]
			if kind == "Seq Scan" {
				if archive[name] {
					t.Errorf("a save's statement reads %s in sequence:\n%s\n%s", name, q, plan)
				}
				continue
			}
			cols := columns[name]
			if len(cols) == 0 || cols[0] != "workspace_id" || (table != "" && !archive[table]) {
				continue
			}
			checked++
			cond := ""
			for _, next := range lines[i+1:] {
				if c := pgIndexCond.FindStringSubmatch(strings.TrimSpace(next)); c != nil {
					cond = c[1]
					break
				}
				if pgScan.MatchString(next) || strings.Contains(next, "->") {
					break
				}
			}
			if len(cols) > 1 && !constrains(cond, cols[1]) {
				t.Errorf("a save's statement reads %s by the workspace alone (%s):\n%s\n%s", name, cond, q, plan)
			}
		}
	}
	t.Logf("%d statements of the saves, %d scans by an index led by the workspace", len(ran), checked)
	if checked < 3 {
		t.Errorf("%d scans by an index led by the workspace in %d statements, want at least 3: the saves ran too little", checked, len(ran))
	}
}

// constrains reports whether the index condition cond bounds column col.
func constrains(cond, col string) bool {
	return regexp.MustCompile(`(^|[(\s.])` + regexp.QuoteMeta(col) + `\s*(=|<|>|<=|>=)\s`).MatchString(cond)
}

// reexaminedStatements runs saveReexamined on s (of one connection) and
// returns the texts of the statements its saves ran, those of the seed
// before it left out; the last save must move an article and merge a
// story.
func reexaminedStatements(t *testing.T, s *store.Store, ws *model.Workspace, src *model.FeedSource, t0 time.Time) map[string]bool {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CachedStatements(ctx, true); err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	var last model.SaveCounts
	saveReexamined(t, s, ws, src, t0, func(_ string, c model.SaveCounts) {
		last = c
		texts, err := s.CachedStatements(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range texts {
			ran[q] = true
		}
	})
	if last.Stories.Moved != 1 || last.Stories.Merged != 1 {
		t.Fatalf("the last save's story counts %+v: the test needs a move and a merge", last.Stories)
	}
	return ran
}
