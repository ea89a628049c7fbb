package store_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
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
	s, err := store.OpenWith(ctx, testdb.URL(t, store.SQLite), store.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seedArchived(t, s, 1, t0)
	// The seed's statements are not a save's.
	if _, err := s.CachedStatements(ctx, true); err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	var last model.SaveCounts
	saveReexamined(t, s, ws, srcs[0], t0, func(_ string, c model.SaveCounts) {
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
