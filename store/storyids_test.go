package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// forbidStoryRewrites makes the database refuse any UPDATE of
// feed_articles.story_id: a save that placed an article after inserting
// it would fail.
func forbidStoryRewrites(t *testing.T, s *store.Store) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER forbid_story_rewrite BEFORE UPDATE OF story_id ON feed_articles
		BEGIN SELECT RAISE(ABORT, 'feed_articles.story_id rewritten'); END`}
	if s.Dialect() == store.Postgres {
		stmts = []string{`CREATE FUNCTION forbid_story_rewrite() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'feed_articles.story_id rewritten'; END $$`,
			`CREATE TRIGGER forbid_story_rewrite BEFORE UPDATE OF story_id ON feed_articles
			FOR EACH ROW EXECUTE FUNCTION forbid_story_rewrite()`}
	}
	for _, q := range stmts {
		if _, err := s.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNewArticlesAreInsertedWithTheirStories: a save inserts every new
// article with its story, the stories it starts included, and never
// rewrites an article's row to place it (the database refuses that here).
// A story whose articles another poll stored first (the insert kept
// none of them) is not written: the one a stored article would have
// started does not exist, and the one whose first article was stored
// first is started by the article that joined it, as its first and only
// article. The references to stories still hold at commit: a placement
// naming a story that does not exist fails the save and keeps nothing.
func TestNewArticlesAreInsertedWithTheirStories(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		forbidStoryRewrites(t, s)
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		first := savePoll(t, s, ws, srcs[0], nil,
			storyArticle("https://a.example/rates", "Rates up", other, t0, true),
			storyArticle("https://a.example/quake", "Quake off Chile", wire, t0, true))
		if first.Stories.Started != 2 {
			t.Fatalf("the first poll started %d stories, want 2", first.Stories.Started)
		}
		stories := count(t, s, `SELECT COUNT(*) FROM stories`)

		// Another source carries both stored articles: its save was decided
		// before it found them stored.
		arts := []model.NewArticle{
			storyArticle("https://a.example/rates", "Rates up", other, t0, true),
			storyArticle("https://a.example/quake", "Quake off Chile", wire, t0, true),
			storyArticle("https://b.example/quake", "Chile quake", ownReport, t0.Add(time.Minute), true),
		}
		h := &handPlacer{placement: model.StoryPlacement{Articles: []model.StoryChoice{
			{JoinsArticle: -1, Terms: []uint32{3}},
			{JoinsArticle: -1, Terms: []uint32{5}},
			{JoinsArticle: 1, Reason: "the same quake", Terms: []uint32{5}},
		}}}
		c := savePoll(t, s, ws, srcs[1], h, arts...)
		if c.New != 1 || c.Duplicate != 2 || c.Stories.Started != 1 || c.Stories.Joined != 0 {
			t.Errorf("counts %+v; want 1 new, 2 duplicates, 1 story started", c)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories`); n != stories+1 {
			t.Errorf("%d stories, want %d: one more", n, stories+1)
		}
		quake := storyOf(t, s, "https://b.example/quake")
		id := count(t, s, `SELECT id FROM feed_articles WHERE external_url = 'https://b.example/quake'`)
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE id = ? AND article_count = 1 AND first_article_id = ?`, quake, id); n != 1 {
			t.Errorf("story %d does not have the joining article %d as its first and only one", quake, id)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE article_count = 0 OR first_article_id IS NULL`); n != 0 {
			t.Errorf("%d stories without an article", n)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE story_id = ? AND feed_article_id = ?`, quake, id); n != 1 {
			t.Errorf("%d term entries of the new article under its story, want 1", n)
		}

		bad := &handPlacer{placement: model.StoryPlacement{Articles: []model.StoryChoice{{StoryID: 1 << 40, JoinsArticle: -1}}}}
		_, err := trySavePoll(s, ws, srcs[1], bad, storyArticle("https://b.example/lost", "Lost", other, t0, true))
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), "foreign key") {
			t.Errorf("a placement naming a missing story: err %v, want the reference refused", err)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE external_url = 'https://b.example/lost'`); n != 0 {
			t.Error("the refused save kept its article")
		}
	})
}

// TestStoryIDsReservedAcrossSaves: the ids a save reserves for the
// stories it starts are not handed to the next save, which a save that
// reserved ids and then found its articles stored by another poll could
// otherwise cause.
func TestStoryIDsReservedAcrossSaves(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		savePoll(t, s, ws, srcs[0], nil, storyArticle("https://a.example/1", "One", other, t0, false))
		savePoll(t, s, ws, srcs[1], nil, storyArticle("https://a.example/1", "One", other, t0, false),
			storyArticle("https://b.example/2", "Two", wire, t0, false))
		savePoll(t, s, ws, srcs[0], nil, storyArticle("https://a.example/3", "Three", ownReport, t0, false))
		one, two, three := storyOf(t, s, "https://a.example/1"), storyOf(t, s, "https://b.example/2"), storyOf(t, s, "https://a.example/3")
		if !(one < two && two < three) {
			t.Errorf("stories %d, %d, %d; want three distinct, in the order of the saves", one, two, three)
		}
	})
}
