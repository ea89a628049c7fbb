package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestStartingStoriesKeepsSQLiteStatements: on SQLite, saves that start
// stories (through the placer, and without one) leave the statements the
// connection keeps valid: SQLite prepares none of them again by itself,
// as it must after anything that expires them (a flag pragma does).
// Every save is of one source: SQLite also prepares a statement again
// when a parameter its plan may depend on is bound to another value (the
// lookup of a source's webhooks, for another source).
func TestStartingStoriesKeepsSQLiteStatements(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, store.SQLite, store.Options{MaxOpenConns: 1})
	ws, srcs := seed(t, s, "https://wire.example/feed")
	t0 := time.Date(2025, 3, 4, 6, 12, 0, 0, time.UTC)
	poll := func(round int, body string, withPlacer bool) {
		arts := []model.NewArticle{
			storyArticle(fmt.Sprintf("https://wire.example/%d/a", round), "Report", body, t0, true),
			storyArticle(fmt.Sprintf("https://wire.example/%d/b", round), "Central bank raises rates", other, t0, true),
		}
		var plan model.StoryPlacer
		if withPlacer {
			plan = placer(t, arts)
		}
		if c := savePoll(t, s, ws, srcs[0], plan, arts...); c.Stories.Started == 0 {
			t.Fatalf("round %d started no story: %+v", round, c.Stories)
		}
	}
	poll(0, wire, true) // prepares the statements of a save
	if _, err := s.SQLiteReprepares(ctx); err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 3; round++ {
		poll(round, wire, false)
	}
	poll(4, otherQuake, true) // another event: the placer starts its story
	n, err := s.SQLiteReprepares(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("SQLite prepared the kept statements again %d times over four saves that started stories, want 0", n)
	}
}

// TestSaveWhoseStoriesLostTheirArticles: a save that would start stories
// for articles another poll stored first (the insert keeps none of them)
// leaves no story row behind, with or without an article, and the next
// story still gets a new id.
func TestSaveWhoseStoriesLostTheirArticles(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		arts := []model.NewArticle{
			storyArticle("https://a.example/quake", "Quake off Chile", wire, t0, true),
			storyArticle("https://a.example/rates", "Rates up", other, t0, true),
		}
		savePoll(t, s, ws, srcs[0], placer(t, arts), arts...)
		stories := count(t, s, `SELECT COUNT(*) FROM stories`)
		last := count(t, s, `SELECT MAX(id) FROM stories`)

		c := savePoll(t, s, ws, srcs[1], nil, arts...) // each would start a story of its own
		if c.New != 0 || c.Duplicate != 2 || c.Stories != (model.StoryCounts{}) {
			t.Errorf("counts %+v; want 2 duplicates and no story", c)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories`); n != stories {
			t.Errorf("%d stories after a save that kept no article, want %d", n, stories)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories s WHERE article_count = 0 OR first_article_id IS NULL
			OR NOT EXISTS (SELECT 1 FROM feed_articles a WHERE a.story_id = s.id)`); n != 0 {
			t.Errorf("%d stories without an article", n)
		}

		savePoll(t, s, ws, srcs[1], nil, storyArticle("https://b.example/fire", "Fire", otherQuake, t0, true))
		if id := storyOf(t, s, "https://b.example/fire"); id <= int64(last) {
			t.Errorf("the next story got id %d, not above the last one %d", id, last)
		}
	})
}
