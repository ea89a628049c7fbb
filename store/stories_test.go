package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// wire is a wire report; the copies below carry it under other
// furniture, or cut to its opening.
const wire = `A magnitude 6.8 earthquake struck off the coast of central Chile early on Tuesday, shaking buildings in the capital Santiago and the port city of Valparaiso, the U.S. Geological Survey said.

The quake hit at 3:12 a.m. local time at a depth of 31 kilometres, about 48 km west of Valparaiso, according to the USGS. Chile's navy said the earthquake did not meet the conditions to generate a tsunami along the coast.

The national disaster agency said there were no immediate reports of deaths. Power was cut to about 120,000 homes in the Valparaiso region and some residents of coastal neighbourhoods left their homes as a precaution.`

const other = `The central bank raised its benchmark interest rate by a quarter point to 4.75 percent on Wednesday, its third increase this year, saying inflation of 6.1 percent was still far above its target of 2 percent.

Governor Elena Marsh told reporters the board had weighed a larger move of half a point but judged that the economy, which grew 0.3 percent in the last quarter, was cooling. Markets had priced in the quarter-point rise and the currency barely moved.`

// storyArticle is an article of a poll with its signature and reported
// time, not yet placed.
func storyArticle(url, title, body string, at time.Time, promote bool) model.NewArticle {
	na := article(url, "hash-"+url, promote)
	na.Article.Title, na.Article.ContentMarkdown = title, body
	na.Article.PublishedAt = &at
	na.Article.ExtractiveSummary = "Summary of " + title
	f, err := stories.Facts(stories.Sign(title, body), at)
	if err != nil {
		panic(err)
	}
	na.Story = f
	return na
}

// decide does what the pipeline does before a save: one candidate lookup
// for the poll's articles, and the decision. It returns the placer the
// save is handed.
func decide(t *testing.T, s *store.Store, wsID int64, arts []model.NewArticle) *stories.Placer {
	t.Helper()
	items := make([]stories.Item, len(arts))
	for i, a := range arts {
		if a.Story != nil {
			items[i] = stories.Item{Signature: stories.Sign(a.Article.Title, a.Article.ContentMarkdown), At: a.Story.ReportedAt}
		}
	}
	p, err := stories.Prepare(context.Background(), s, wsID, items, stories.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// savePoll leases src and saves arts as its poll.
func savePoll(t *testing.T, s *store.Store, ws *model.Workspace, src *model.FeedSource, plan model.StoryPlacer, arts ...model.NewArticle) model.SaveCounts {
	t.Helper()
	ctx := context.Background()
	if _, err := s.ClaimSource(ctx, ws.ID, src.ID, "me", time.Minute); err != nil {
		t.Fatal(err)
	}
	c, err := s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: src.ID, Owner: "me", Articles: arts, Stories: plan,
		Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now().Add(30 * time.Minute)},
		Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: len(arts)}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// storyOf reads an article's story by URL.
func storyOf(t *testing.T, s *store.Store, url string) int64 {
	t.Helper()
	var id *int64
	if err := s.DB().Get(&id, s.DB().Rebind(`SELECT story_id FROM feed_articles WHERE external_url = ?`), url); err != nil {
		t.Fatalf("story of %s: %v", url, err)
	}
	if id == nil {
		t.Fatalf("article %s has no story", url)
	}
	return *id
}

func count(t *testing.T, s *store.Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.DB().Get(&n, s.DB().Rebind(query), args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestStoriesAcrossPolls: a syndicated copy on another source joins the
// story of the wire's report; an unrelated report and an article stored
// without a story item start stories of their own. The stories table
// keeps the count and the first reporter (the earlier report, even when
// it is stored later), content items carry the story, and each signed
// article has its band keys.
func TestStoriesAcrossPolls(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://wire.example/feed", "https://daily.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 12, 0, 0, time.UTC)
		first := []model.NewArticle{storyArticle("https://wire.example/quake", "Magnitude 6.8 earthquake strikes off central Chile", wire, t0.Add(time.Hour), true)}
		savePoll(t, s, ws, srcs[0], decide(t, s, ws.ID, first), first...)

		// The copy was reported an hour before the wire's own item.
		second := []model.NewArticle{
			storyArticle("https://daily.example/chile", "Strong quake off Chile: no tsunami expected",
				"By Daily Staff | Share this article\n\n"+wire+"\n\nSign up for our newsletter", t0, true),
			storyArticle("https://daily.example/rates", "Central bank raises rates to 4.75 percent", other, t0, true),
			article("https://daily.example/plain", "hash-plain", false),
		}
		plan := decide(t, s, ws.ID, second)
		if c := plan.Choices(); c[0].StoryID == 0 || c[1].StoryID != 0 {
			t.Fatalf("decisions %+v / %+v: want the copy to join the stored story and the other to start one", c[0], c[1])
		}
		savePoll(t, s, ws, srcs[1], plan, second...)

		quake := storyOf(t, s, "https://wire.example/quake")
		if got := storyOf(t, s, "https://daily.example/chile"); got != quake {
			t.Errorf("the copy is in story %d, the wire's report in %d", got, quake)
		}
		rates, plain := storyOf(t, s, "https://daily.example/rates"), storyOf(t, s, "https://daily.example/plain")
		if rates == quake || plain == quake || plain == rates {
			t.Errorf("stories quake %d, rates %d, plain %d: want three", quake, rates, plain)
		}
		var st struct {
			Count int   `db:"article_count"`
			First int64 `db:"first_article_id"`
		}
		if err := s.DB().Get(&st, s.DB().Rebind(`SELECT article_count, first_article_id FROM stories WHERE id = ?`), quake); err != nil {
			t.Fatal(err)
		}
		copyID := count(t, s, `SELECT id FROM feed_articles WHERE external_url = 'https://daily.example/chile'`)
		if st.Count != 2 || st.First != int64(copyID) {
			t.Errorf("story %+v, want 2 articles, first reporter %d (the copy, reported earlier)", st, copyID)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM content_items WHERE story_id = ?`, quake); n != 2 {
			t.Errorf("%d content items carry the quake story, want 2", n)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE workspace_id = ?`, ws.ID); n != 3 {
			t.Errorf("%d stories, want 3", n)
		}
		signed := count(t, s, `SELECT COUNT(DISTINCT feed_article_id) FROM story_bands WHERE workspace_id = ?`, ws.ID)
		if signed != 3 || count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE story_signature IS NOT NULL`) != 3 {
			t.Errorf("%d articles have band keys, want the 3 signed ones", signed)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE extractive_summary LIKE 'Summary of %' AND reported_at IS NOT NULL`); n != 3 {
			t.Errorf("%d articles kept their summary and reported time, want 3", n)
		}
	})
}

// TestStoriesWithinOnePoll: copies in one poll make one story, also when
// the article they were decided to join loses its URL to another poll
// (the next copy founds the story then).
func TestStoriesWithinOnePoll(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		// Another poll already stored the URL of the first copy.
		savePoll(t, s, ws, srcs[1], nil, article("https://a.example/1", "taken", false))
		arts := []model.NewArticle{
			storyArticle("https://a.example/1", "Quake off Chile", wire, t0, true),
			storyArticle("https://a.example/2", "Chile quake: no tsunami", "Breaking\n\n"+wire, t0.Add(time.Minute), true),
			storyArticle("https://a.example/3", "Earthquake shakes Santiago", wire+"\n\nMore to follow.", t0.Add(2*time.Minute), true),
		}
		plan := decide(t, s, ws.ID, arts)
		if c := plan.Choices(); c[1].JoinsArticle != 0 || c[2].JoinsArticle != 0 {
			t.Fatalf("decisions %+v %+v: want both to join the first", c[1], c[2])
		}
		c := savePoll(t, s, ws, srcs[0], plan, arts...)
		if c.New != 2 || c.Duplicate != 1 {
			t.Fatalf("saved %+v, want 2 new and the taken URL a duplicate", c)
		}
		a2, a3 := storyOf(t, s, "https://a.example/2"), storyOf(t, s, "https://a.example/3")
		if a2 != a3 {
			t.Errorf("copies in stories %d and %d, want one", a2, a3)
		}
		if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, a2); n != 2 {
			t.Errorf("story counts %d articles, want 2", n)
		}
	})
}

// TestNearDuplicatesSavedConcurrentlyMakeOneStory: two sources carry the
// same event; both polls looked up their candidates before either saved,
// so both decided to start a story. Saved one after the other, and saved
// at once, they end in one story: the save that comes second sees the
// workspace's story generation moved and decides again in its
// transaction.
func TestNearDuplicatesSavedConcurrentlyMakeOneStory(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		t.Run(fmt.Sprintf("concurrent=%v", concurrent), func(t *testing.T) {
			testdb.EachStore(t, func(t *testing.T, s *store.Store) {
				ws, srcs := seed(t, s, "https://wire.example/feed", "https://daily.example/feed")
				t0 := time.Date(2025, 3, 4, 6, 12, 0, 0, time.UTC)
				a := []model.NewArticle{storyArticle("https://wire.example/quake", "Magnitude 6.8 earthquake strikes off central Chile", wire, t0, true)}
				b := []model.NewArticle{storyArticle("https://daily.example/quake", "Chile quake: no tsunami expected",
					"By Daily Staff\n\n"+wire+"\n\nRelated coverage", t0.Add(40*time.Minute), true)}
				planA, planB := decide(t, s, ws.ID, a), decide(t, s, ws.ID, b)
				if planA.Choices()[0] != model.NewStory() || planB.Choices()[0] != model.NewStory() {
					t.Fatal("both polls should have decided to start a story")
				}
				if !concurrent {
					savePoll(t, s, ws, srcs[0], planA, a...)
					savePoll(t, s, ws, srcs[1], planB, b...)
				} else {
					var wg sync.WaitGroup
					for i, job := range []struct {
						src  *model.FeedSource
						plan *stories.Placer
						arts []model.NewArticle
					}{{srcs[0], planA, a}, {srcs[1], planB, b}} {
						if _, err := s.ClaimSource(context.Background(), ws.ID, job.src.ID, fmt.Sprint("w", i), time.Minute); err != nil {
							t.Fatal(err)
						}
						wg.Add(1)
						go func() {
							defer wg.Done()
							_, err := s.SavePoll(context.Background(), model.PollSave{WorkspaceID: ws.ID, SourceID: job.src.ID,
								Owner: fmt.Sprint("w", i), Articles: job.arts, Stories: job.plan,
								Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
								Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}})
							if err != nil {
								t.Error(err)
							}
						}()
					}
					wg.Wait()
				}
				if x, y := storyOf(t, s, "https://wire.example/quake"), storyOf(t, s, "https://daily.example/quake"); x != y {
					t.Errorf("the two reports are stories %d and %d, want one", x, y)
				}
				if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE workspace_id = ?`, ws.ID); n != 1 {
					t.Errorf("%d stories, want 1", n)
				}
			})
		})
	}
}

// TestStoryCandidatesPerKeyLimit: a key many articles share contributes
// only its stories.PerKeyLimit most recently reported ones, and nothing
// reported before since.
func TestStoryCandidatesPerKeyLimit(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed")
		t0 := time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)
		var arts []model.NewArticle
		for i := range 40 {
			arts = append(arts, storyArticle(fmt.Sprintf("https://a.example/%d", i), "Quake off Chile", wire, t0.Add(time.Duration(i)*time.Hour), false))
		}
		savePoll(t, s, ws, srcs[0], nil, arts...)
		sig := stories.Sign("Quake off Chile", wire)
		found, err := s.StoryCandidates(context.Background(), model.StoryQuery{WorkspaceID: ws.ID, Keys: sig.Keys()[:1],
			Since: t0, PerKey: stories.PerKeyLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(found.Candidates) != stories.PerKeyLimit {
			t.Fatalf("%d candidates for one key, want %d", len(found.Candidates), stories.PerKeyLimit)
		}
		for _, c := range found.Candidates {
			if c.ReportedAt.Before(t0.Add(8*time.Hour)) || c.StoryID == 0 || c.Signature == nil {
				t.Errorf("candidate %+v: want one of the 32 newest, with its story and signature", c)
			}
		}
		found, err = s.StoryCandidates(context.Background(), model.StoryQuery{WorkspaceID: ws.ID, Keys: sig.Keys(),
			Since: t0.Add(35 * time.Hour), PerKey: stories.PerKeyLimit})
		if err != nil || len(found.Candidates) != 5 {
			t.Fatalf("since the 36th hour: %d candidates, %v; want 5", len(found.Candidates), err)
		}
		if found.Generation != 0 {
			t.Errorf("generation %d: a save without a plan does not count", found.Generation)
		}
	})
}

// TestPruneStoryBands: pruning deletes the band keys of articles reported
// before the cut, keeps the others, and leaves articles and stories alone.
func TestPruneStoryBands(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed")
		t0 := time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)
		savePoll(t, s, ws, srcs[0], nil,
			storyArticle("https://a.example/old", "Quake off Chile", wire, t0, false),
			storyArticle("https://a.example/new", "Rates up", other, t0.Add(10*24*time.Hour), false))
		before := count(t, s, `SELECT COUNT(*) FROM story_bands`)
		n, err := s.PruneStoryBands(context.Background(), t0.Add(3*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		left := count(t, s, `SELECT COUNT(*) FROM story_bands`)
		old := count(t, s, `SELECT COUNT(*) FROM story_bands b JOIN feed_articles a ON a.id = b.feed_article_id WHERE a.external_url = 'https://a.example/old'`)
		if n == 0 || old != 0 || left == 0 || int64(before-left) != n {
			t.Errorf("pruned %d of %d rows, %d left, %d of the old article: want all of the old article's and none else", n, before, left, old)
		}
		if count(t, s, `SELECT COUNT(*) FROM feed_articles`) != 2 || count(t, s, `SELECT COUNT(*) FROM stories`) != 2 {
			t.Error("pruning touched articles or stories")
		}
	})
}

// handPlacer is a StoryPlacer that hands the save a fixed placement, after
// reading candidates through the view it is given.
type handPlacer struct {
	placement model.StoryPlacement
	err       error
	query     model.StoryQuery
	req       model.StoryRequest
	seen      []model.StoryCandidate
}

func (h *handPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	h.req = req
	found, err := view.StoryCandidates(ctx, h.query)
	if err != nil {
		return model.StoryPlacement{}, err
	}
	h.seen = found.Candidates
	return h.placement, h.err
}

// TestSaveWritesWhatThePlacerHands: the save asks the poll's StoryPlacer,
// inside its transaction, and writes what it answers: an article joining
// a stored story with its reason, another starting one, and a merge of
// two stored stories (the merged one's articles and content items move,
// it is marked merged and emptied, the surviving story is recounted). A
// placer that fails leaves nothing of the poll.
func TestSaveWritesWhatThePlacerHands(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		savePoll(t, s, ws, srcs[0], nil,
			storyArticle("https://a.example/quake", "Quake off Chile", wire, t0, true),
			storyArticle("https://a.example/rates", "Rates up", other, t0, true))
		quake, rates := storyOf(t, s, "https://a.example/quake"), storyOf(t, s, "https://a.example/rates")

		bridge := storyArticle("https://b.example/both", "Quake and rates", wire+"\n\n"+other, t0.Add(time.Hour), true)
		fresh := storyArticle("https://b.example/new", "Something else", "Short.", t0.Add(time.Hour), false)
		h := &handPlacer{
			query: model.StoryQuery{WorkspaceID: ws.ID, Keys: bridge.Story.Keys, Since: t0.Add(-time.Hour), PerKey: 32},
			placement: model.StoryPlacement{
				Articles: []model.StoryChoice{{StoryID: quake, JoinsArticle: -1, Reason: "bridges the quake and the rates"}, model.NewStory()},
				Merges:   []model.StoryMerge{{From: rates, Into: quake}},
			},
		}
		// A placer that fails: nothing of the poll is kept.
		failing := &handPlacer{query: h.query, err: fmt.Errorf("no decision")}
		if _, err := s.ClaimSource(context.Background(), ws.ID, srcs[1].ID, "me", time.Minute); err != nil {
			t.Fatal(err)
		}
		_, err := s.SavePoll(context.Background(), model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[1].ID, Owner: "me",
			Articles: []model.NewArticle{bridge, fresh}, Stories: failing,
			Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
			Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}})
		if err == nil || count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE external_url LIKE 'https://b.example/%'`) != 0 {
			t.Fatalf("a failing placer: err %v, and the poll's articles were kept", err)
		}

		// The lease taken for the failed save is still held: save again.
		if _, err := s.SavePoll(context.Background(), model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[1].ID, Owner: "me",
			Articles: []model.NewArticle{bridge, fresh}, Stories: h,
			Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
			Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}}); err != nil {
			t.Fatal(err)
		}
		if len(h.seen) != 2 || h.req.Generation != 1 || len(h.req.Facts) != 2 || h.req.Facts[0] != bridge.Story {
			t.Errorf("the placer saw %d candidates and request %+v: want the 2 stored articles, generation 1 (the failed save counted nothing) and the poll's facts",
				len(h.seen), h.req)
		}
		if got := storyOf(t, s, "https://b.example/both"); got != quake {
			t.Errorf("the bridging article is in story %d, want %d", got, quake)
		}
		var reason string
		if err := s.DB().Get(&reason, s.DB().Rebind(`SELECT story_reason FROM feed_articles WHERE external_url = ?`),
			"https://b.example/both"); err != nil || reason != "bridges the quake and the rates" {
			t.Errorf("reason %q (%v), want the placer's", reason, err)
		}
		if got := storyOf(t, s, "https://a.example/rates"); got != quake {
			t.Errorf("the merged story's article is in story %d, want %d", got, quake)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM content_items WHERE story_id = ?`, rates); n != 0 {
			t.Errorf("%d content items still carry the merged story", n)
		}
		if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, quake); n != 3 {
			t.Errorf("the surviving story counts %d articles, want 3", n)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE id = ? AND merged_into = ? AND article_count = 0`, rates, quake); n != 1 {
			t.Error("the merged story is not marked merged into the surviving one")
		}
		if fresh := storyOf(t, s, "https://b.example/new"); fresh == quake || fresh == rates {
			t.Errorf("the new article is in story %d, want a story of its own", fresh)
		}
	})
}
