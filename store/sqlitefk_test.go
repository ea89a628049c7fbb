package store_test

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// TestSQLiteReferencesToSavedRowsAreIndexed: on SQLite a save defers its
// references to the commit, and while one is unresolved SQLite looks up
// every row the save inserts into a referenced table in the columns that
// reference it. Each such column of a table a save inserts into is found
// through an index, not by reading its whole table for every row.
func TestSQLiteReferencesToSavedRowsAreIndexed(t *testing.T) {
	s := testdb.Store(t, store.SQLite)
	saved := map[string]bool{"feed_articles": true, "content_items": true, "stories": true, "story_terms": true,
		"story_doc_freq": true, "poll_runs": true, "webhook_deliveries": true}
	var refs []struct {
		Table  string `db:"tbl"`
		Parent string `db:"parent"`
		Column string `db:"col"`
	}
	if err := s.DB().Select(&refs, `SELECT m.name AS tbl, f."table" AS parent, f."from" AS col
		FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range refs {
		if !saved[r.Parent] {
			continue
		}
		var plan []struct {
			ID     int    `db:"id"`
			Parent int    `db:"parent"`
			NotUse int    `db:"notused"`
			Detail string `db:"detail"`
		}
		if err := s.DB().Select(&plan, `EXPLAIN QUERY PLAN SELECT 1 FROM `+r.Table+` WHERE `+r.Column+` = 1`); err != nil {
			t.Fatal(err)
		}
		checked++
		if len(plan) == 0 || !strings.Contains(plan[0].Detail, "USING") {
			t.Errorf("%s.%s (references %s) is read by %+v, want an index", r.Table, r.Column, r.Parent, plan)
		}
	}
	if checked < 5 {
		t.Errorf("checked %d references to saved tables, want at least 5", checked)
	}
}
