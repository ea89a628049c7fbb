package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/store"
)

// lateJoinTexts are three reports of one event.
var lateJoinTexts = []fixedText{
	{"Lindsay Lohan checks into Betty Ford Center",
		"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said."},
	{"Lohan enters Betty Ford for 90-day rehab stay",
		"Actress Lindsay Lohan arrived at the Betty Ford Center on Friday for the 90-day rehabilitation stay a Los Angeles judge ordered, Shawn Holley confirmed."},
	{"Lohan begins court-ordered rehab at Betty Ford",
		"Lindsay Lohan began her court-ordered 90-day stay at the Betty Ford Center in Rancho Mirage on Friday, lawyer Shawn Holley said; a Los Angeles judge ordered the rehabilitation."},
}

// A late join is written by the save as the merge it is, on both
// databases: the second report, which started a story of its own (the
// threshold bent up for its poll alone), ends in the story of the other
// two once the third report's poll places it, and the merged story
// resolves there, and the article of the story that joined late carries
// the join's reason while the others keep theirs. On PostgreSQL the poll costs the merge's three
// statements more than the same poll without late joins, and no more.
func TestSaveWritesALateJoin(t *testing.T) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		stmts := map[bool]int64{}
		for _, late := range []bool{false, true} {
			d := storyDB(t, dialect)
			ctx := context.Background()
			t0 := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
			at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Hour) }
			opts := []stories.GroupOptions{{}, {Threshold: 0.98, MergeThreshold: 0.99}, {MergeThreshold: 0.99, LateJoins: late}}
			var started [2]int64 // the stories of the first two reports, before the third poll
			for i, o := range opts {
				p := storyPoll(t, d, lateJoinTexts[i], i, 1, at, false)
				pl, err := stories.NewPlacer([]stories.Arrival{{Profile: stories.NewProfile(lateJoinTexts[i].title, lateJoinTexts[i].body), At: at(i)}}, o)
				if err != nil {
					t.Fatal(err)
				}
				p.Stories = pl
				before := d.statements(t)
				c, err := d.store.SavePoll(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if i < 2 {
					started[i] = storyOfArticle(t, d.direct, dialect, i)
				}
				if i == 2 {
					stmts[late] = d.statements(t) - before
					if want := map[bool]int{false: 0, true: 1}[late]; c.Stories.Merged != want {
						t.Errorf("%s, late joins %v: the third poll merged %d stories, want %d", dialect, late, c.Stories.Merged, want)
					}
				}
			}
			var story [3]int64
			var reason [3]string
			for i := range story {
				if err := d.direct.QueryRow(rebindIf(dialect, `SELECT story_id, story_reason FROM feed_articles WHERE external_url = ?`),
					"https://news.test/"+strconv.Itoa(i)).Scan(&story[i], &reason[i]); err != nil {
					t.Fatal(err)
				}
			}
			apart := story[0] != story[1] || story[1] != story[2]
			if apart == late {
				t.Errorf("%s, late joins %v: the three reports are in stories %v", dialect, late, story)
			}
			if !late {
				continue
			}
			var from int64
			var merged sql.NullInt64
			var count int
			err := d.direct.QueryRow(rebindIf(dialect, `SELECT id, merged_into FROM stories WHERE id <> ? AND merged_into IS NOT NULL`), story[0]).Scan(&from, &merged)
			if err != nil || merged.Int64 != story[0] {
				t.Errorf("%s: the late-joined story resolves to %v (%v), want %d", dialect, merged, err, story[0])
			}
			joined := slices.Index(started[:], from) // the article whose story joined late
			if joined < 0 {
				t.Fatalf("%s: the merged story %d is neither report's first story %v", dialect, from, started)
			}
			want := fmt.Sprintf("joined story %d late: the story it started, %d, was merged into it after a later poll grew it, score ", story[0], from)
			if !strings.HasPrefix(reason[joined], want) {
				t.Errorf("%s: the late-joined article's story_reason is %q, want %q…", dialect, reason[joined], want)
			}
			if other := 1 - joined; reason[other] != "" {
				t.Errorf("%s: article %d, which started the surviving story, has story_reason %q, want it kept empty", dialect, other, reason[other])
			}
			if reason[2] == "" || strings.Contains(reason[2], " late:") {
				t.Errorf("%s: the third report's story_reason is %q, want its own join's", dialect, reason[2])
			}
			if err := d.direct.QueryRow(rebindIf(dialect, `SELECT article_count FROM stories WHERE id = ?`), story[0]).Scan(&count); err != nil || count != 3 {
				t.Errorf("%s: story %d counts %d articles (%v), want 3", dialect, story[0], count, err)
			}
		}
		if dialect == store.Postgres {
			t.Logf("PostgreSQL, the third poll: %d statements without late joins, %d with", stmts[false], stmts[true])
			if stmts[true] > stmts[false]+3 {
				t.Errorf("the late join cost %d statements more, want at most the merge's 3", stmts[true]-stmts[false])
			}
		}
	}
}

// storyOfArticle is the story_id of the i-th report's article.
func storyOfArticle(t *testing.T, db *sql.DB, dialect string, i int) int64 {
	t.Helper()
	var id int64
	if err := db.QueryRow(rebindIf(dialect, `SELECT story_id FROM feed_articles WHERE external_url = ?`),
		"https://news.test/"+strconv.Itoa(i)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func rebindIf(dialect, q string) string {
	if dialect == store.Postgres {
		return rebindDollar(q)
	}
	return q
}
