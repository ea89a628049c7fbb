package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// wire is a wire report; the copies below carry it under other
// furniture, or cut to its opening.
const wire = `A magnitude 6.8 earthquake struck off the coast of central Chile early on Tuesday, shaking buildings in the capital Santiago and the port city of Valparaiso, the U.S. Geological Survey said.

The quake hit at 3:12 a.m. local time at a depth of 31 kilometres, about 48 km west of Valparaiso, according to the USGS. Chile's navy said the earthquake did not meet the conditions to generate a tsunami along the coast.

The national disaster agency said there were no immediate reports of deaths. Power was cut to about 120,000 homes in the Valparaiso region and some residents of coastal neighbourhoods left their homes as a precaution.`

// ownReport is the same quake written up independently: other words,
// other order, the same names and figures.
const ownReport = `Residents of Valparaiso and Santiago were jolted awake before dawn on Tuesday when a powerful offshore earthquake, measured at magnitude 6.8 by the USGS, rattled central Chile.

Chile's navy ruled out a tsunami. Officials said about 120,000 households in the Valparaiso region lost electricity, but no deaths were reported. Some people living near the shore spent the rest of the night on higher ground.`

// otherQuake is another earthquake: the same kind of event, another
// place and other figures.
const otherQuake = `A magnitude 5.9 earthquake struck southern Peru on Thursday afternoon, damaging old adobe houses in the Arequipa region, Peru's geophysical institute said.

The quake was centred 20 kilometres south of the town of Chala at a depth of 45 kilometres. Regional authorities in Arequipa said two people were injured by falling walls and a landslide blocked the Pan-American Highway for several hours.`

const other = `The central bank raised its benchmark interest rate by a quarter point to 4.75 percent on Wednesday, its third increase this year, saying inflation of 6.1 percent was still far above its target of 2 percent.

Governor Elena Marsh told reporters the board had weighed a larger move of half a point but judged that the economy, which grew 0.3 percent in the last quarter, was cooling. Markets had priced in the quarter-point rise and the currency barely moved.`

// storyArticle is an article of a poll with its reported time, not yet
// placed.
func storyArticle(url, title, body string, at time.Time, promote bool) model.NewArticle {
	na := article(url, "hash-"+url, promote)
	na.Article.Title, na.Article.ContentMarkdown = title, body
	na.Article.PublishedAt = &at
	na.Article.ExtractiveSummary = "Summary of " + title
	na.Story = &model.StoryFacts{ReportedAt: at}
	return na
}

// quakeReports are n copies of one wire report of a quake, as
// https://a.example/0.. with their own text hashes, report i at at(i).
func quakeReports(n int, at func(i int) time.Time, promote bool) []model.NewArticle {
	arts := make([]model.NewArticle, 0, n)
	for i := range n {
		a := storyArticle(fmt.Sprintf("https://a.example/%d", i), "Quake off Chile", wire, at(i), promote)
		a.Article.ContentTextHash = fmt.Sprintf("hash-%d", i)
		arts = append(arts, a)
	}
	return arts
}

// background saves, through the placer, an archive of reports of other
// events (the labelled story set's originals, earthquakes left out) a
// day before t0: what gives a workspace's document frequencies their
// sense, so that the words every report uses weigh little and an event's
// names and figures much.
func background(t *testing.T, s *store.Store, ws *model.Workspace, src *model.FeedSource, t0 time.Time) int {
	t.Helper()
	set, err := storyfeeds.Load("../analysis/stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	var arts []model.NewArticle
	for _, a := range set {
		if a.Kind == "original" && !strings.HasPrefix(a.Event, "quake") {
			arts = append(arts, storyArticle("https://archive.example/"+a.ID, a.Title, a.Markdown,
				t0.Add(-24*time.Hour-time.Duration(len(arts))*time.Minute), false))
		}
	}
	savePoll(t, s, ws, src, placer(t, arts), arts...)
	return len(arts)
}

// seedArchived is a workspace with n sources https://sI.example/feed and
// one more that holds the background archive.
func seedArchived(t *testing.T, s *store.Store, n int, t0 time.Time) (*model.Workspace, []*model.FeedSource) {
	t.Helper()
	urls := make([]string, n+1)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://s%d.example/feed", i)
	}
	ws, srcs := seed(t, s, urls...)
	background(t, s, ws, srcs[n], t0)
	return ws, srcs
}

// placer is what the pipeline hands the save for arts: their profiles
// and reported times.
func placer(t *testing.T, arts []model.NewArticle) *stories.Placer {
	t.Helper()
	arrivals := make([]stories.Arrival, len(arts))
	for i, a := range arts {
		arrivals[i] = stories.Arrival{Profile: stories.NewProfile(a.Article.Title, a.Article.ContentMarkdown)}
		if a.Story != nil {
			arrivals[i].At = a.Story.ReportedAt
		}
	}
	p, err := stories.NewPlacer(arrivals, stories.GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// savePoll leases src and saves arts as its poll.
func savePoll(t *testing.T, s *store.Store, ws *model.Workspace, src *model.FeedSource, plan model.StoryPlacer, arts ...model.NewArticle) model.SaveCounts {
	t.Helper()
	c, err := trySavePoll(s, ws, src, plan, arts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func trySavePoll(s *store.Store, ws *model.Workspace, src *model.FeedSource, plan model.StoryPlacer, arts ...model.NewArticle) (model.SaveCounts, error) {
	ctx := context.Background()
	if _, err := s.ClaimSource(ctx, ws.ID, src.ID, "me", time.Minute); err != nil {
		return model.SaveCounts{}, err
	}
	return s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: src.ID, Owner: "me", Articles: arts, Stories: plan,
		Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now().Add(30 * time.Minute)},
		Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: len(arts)}})
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

func text(t *testing.T, s *store.Store, query string, args ...any) string {
	t.Helper()
	var v string
	if err := s.DB().Get(&v, s.DB().Rebind(query), args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

// TestStoriesGroupIndependentReports: across two polls of two sources,
// an independently written report of a stored event and a syndicated
// copy of it join its story; another earthquake and an unrelated report
// start stories of their own, as does an article stored without a story
// item. The story row keeps its count, first reporter (the independent
// report, reported earlier though stored later) and a revision counted
// up once; each joining article stores why; content items carry the
// story; the term index holds at most 12 terms per placed article and
// the document frequencies count every placed article.
func TestStoriesGroupIndependentReports(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://wire.example/feed", "https://daily.example/feed", "https://archive.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 12, 0, 0, time.UTC)
		archived := background(t, s, ws, srcs[2], t0)
		first := []model.NewArticle{storyArticle("https://wire.example/quake", "Magnitude 6.8 earthquake strikes off central Chile", wire, t0.Add(time.Hour), true)}
		c := savePoll(t, s, ws, srcs[0], placer(t, first), first...)
		if c.Stories != (model.StoryCounts{Started: 1}) {
			t.Errorf("first poll's story counts %+v, want one started", c.Stories)
		}
		second := []model.NewArticle{
			storyArticle("https://daily.example/chile", "Chile quake jolts Valparaiso and Santiago; navy says no tsunami", ownReport, t0, true),
			storyArticle("https://daily.example/copy", "Strong quake off Chile",
				"By Daily Staff | Share this article\n\n"+wire+"\n\nSign up for our newsletter", t0.Add(2*time.Hour), true),
			storyArticle("https://daily.example/peru", "Magnitude 5.9 earthquake hits southern Peru", otherQuake, t0.Add(2*time.Hour), true),
			storyArticle("https://daily.example/rates", "Central bank raises rates to 4.75 percent", other, t0, true),
			article("https://daily.example/plain", "hash-plain", false),
		}
		c = savePoll(t, s, ws, srcs[1], placer(t, second), second...)
		if c.Stories != (model.StoryCounts{Joined: 2, Started: 3}) {
			t.Errorf("second poll's story counts %+v, want 2 joined and 3 started", c.Stories)
		}

		quake := storyOf(t, s, "https://wire.example/quake")
		for _, u := range []string{"https://daily.example/chile", "https://daily.example/copy"} {
			if got := storyOf(t, s, u); got != quake {
				t.Errorf("%s is in story %d, the wire's report in %d", u, got, quake)
			}
		}
		peru, rates, plain := storyOf(t, s, "https://daily.example/peru"), storyOf(t, s, "https://daily.example/rates"),
			storyOf(t, s, "https://daily.example/plain")
		if peru == quake || rates == quake || plain == quake || peru == rates || plain == rates || plain == peru {
			t.Errorf("stories quake %d, peru %d, rates %d, plain %d: want four", quake, peru, rates, plain)
		}
		var st struct {
			Count    int   `db:"article_count"`
			First    int64 `db:"first_article_id"`
			Revision int64 `db:"revision"`
		}
		if err := s.DB().Get(&st, s.DB().Rebind(`SELECT article_count, first_article_id, revision FROM stories WHERE id = ?`), quake); err != nil {
			t.Fatal(err)
		}
		ownID := count(t, s, `SELECT id FROM feed_articles WHERE external_url = 'https://daily.example/chile'`)
		if st.Count != 3 || st.First != int64(ownID) || st.Revision != 1 {
			t.Errorf("story %+v, want 3 articles, first reporter %d (the independent report, reported earlier), revision 1", st, ownID)
		}
		wireID := count(t, s, `SELECT id FROM feed_articles WHERE external_url = 'https://wire.example/quake'`)
		reason := text(t, s, `SELECT story_reason FROM feed_articles WHERE external_url = 'https://daily.example/chile'`)
		if want := fmt.Sprintf("joined story %d: similar to its articles (closest article %d), score 0.", quake, wireID); !strings.HasPrefix(reason, want) ||
			!strings.Contains(reason, `shared terms: `) || !strings.Contains(reason, `"valparaiso"`) {
			t.Errorf("reason %q, want it to start %q and name the shared terms", reason, want)
		}
		if r := text(t, s, `SELECT story_reason FROM feed_articles WHERE external_url = 'https://daily.example/peru'`); r != "" {
			t.Errorf("the article that started a story has reason %q", r)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM content_items WHERE story_id = ?`, quake); n != 3 {
			t.Errorf("%d content items carry the quake story, want 3", n)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE workspace_id = ? AND id > ?`, ws.ID, quake); n != 3 {
			t.Errorf("%d stories after the quake's, want 3", n)
		}
		placed := count(t, s, `SELECT COUNT(DISTINCT feed_article_id) FROM story_term_entries WHERE workspace_id = ?`, ws.ID)
		most := count(t, s, `SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM story_term_entries GROUP BY feed_article_id) AS c`)
		if placed != archived+6 || most > stories.DefaultIndexTerms || most == 0 {
			t.Errorf("%d articles in the term index with at most %d terms, want all %d with 1 to %d", placed, most, archived+6, stories.DefaultIndexTerms)
		}
		if n := count(t, s, `SELECT SUM(docs) FROM story_doc_freq WHERE workspace_id = ? AND term = 0`, ws.ID); n != archived+6 {
			t.Errorf("document frequencies count %d articles, want %d", n, archived+6)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE extractive_summary LIKE 'Summary of %' AND reported_at IS NOT NULL`); n != archived+5 {
			t.Errorf("%d articles kept their summary and reported time, want %d", n, archived+5)
		}
	})
}

// TestStoriesWithinOnePoll: copies in one poll make one story, also when
// the article they were decided to join loses its URL to another poll
// (the next copy founds the story then).
func TestStoriesWithinOnePoll(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed", "https://archive.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		background(t, s, ws, srcs[2], t0)
		// Another poll already stored the URL of the first copy.
		savePoll(t, s, ws, srcs[1], nil, article("https://a.example/1", "taken", false))
		arts := []model.NewArticle{
			storyArticle("https://a.example/1", "Quake off Chile", wire, t0, true),
			storyArticle("https://a.example/2", "Chile quake: no tsunami", "Breaking\n\n"+wire, t0.Add(time.Minute), true),
			storyArticle("https://a.example/3", "Earthquake shakes Santiago", ownReport, t0.Add(2*time.Minute), true),
		}
		c := savePoll(t, s, ws, srcs[0], placer(t, arts), arts...)
		if c.New != 2 || c.Duplicate != 1 {
			t.Fatalf("saved %+v, want 2 new and the taken URL a duplicate", c)
		}
		a2, a3 := storyOf(t, s, "https://a.example/2"), storyOf(t, s, "https://a.example/3")
		if a2 != a3 {
			t.Errorf("reports in stories %d and %d, want one", a2, a3)
		}
		if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, a2); n != 2 {
			t.Errorf("story counts %d articles, want 2", n)
		}
	})
}

// TestConcurrentSavesOfOneWorkspaceKeepCounts: many polls of one
// workspace save reports of one stored story at once. No save waits on a
// workspace lock; each locks the story it grows, and one that read the
// story before another's write asks its placer again. The story ends with
// every report, its article_count (kept in place, never recounted) equal
// to its members, and its revision counted up once per save.
func TestConcurrentSavesOfOneWorkspaceKeepCounts(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		const polls = 6
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		ws, srcs := seedArchived(t, s, polls+1, t0)
		first := []model.NewArticle{storyArticle("https://s0.example/quake", "Magnitude 6.8 earthquake strikes off central Chile", wire, t0, true)}
		savePoll(t, s, ws, srcs[0], placer(t, first), first...)
		var wg sync.WaitGroup
		for i := 1; i <= polls; i++ {
			arts := []model.NewArticle{storyArticle(fmt.Sprintf("https://s%d.example/quake", i), "Chile quake: no tsunami",
				fmt.Sprintf("Report %d\n\n", i)+ownReport, t0.Add(time.Duration(i)*time.Minute), true)}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := trySavePoll(s, ws, srcs[i], placer(t, arts), arts...); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		quake := storyOf(t, s, "https://s0.example/quake")
		members := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE story_id = ?`, quake)
		var st struct {
			Count    int   `db:"article_count"`
			Revision int64 `db:"revision"`
		}
		if err := s.DB().Get(&st, s.DB().Rebind(`SELECT article_count, revision FROM stories WHERE id = ?`), quake); err != nil {
			t.Fatal(err)
		}
		if members != polls+1 || st.Count != members || st.Revision != polls {
			t.Errorf("story %d: %d members, article_count %d, revision %d; want %d, %d, %d", quake, members, st.Count, st.Revision,
				polls+1, polls+1, polls)
		}
	})
}

// meetingPlacer is a placer that, once it has decided, waits for the
// placers of the other saves to have decided too (or for a second, when
// they cannot get there before this save commits): so the saves overlap
// as much as the store lets them.
type meetingPlacer struct {
	inner   model.StoryPlacer
	arrived chan struct{}
	all     int
}

func (m *meetingPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	out, err := m.inner.PlaceStories(ctx, view, req)
	m.arrived <- struct{}{}
	deadline := time.After(time.Second)
	for len(m.arrived) < m.all {
		select {
		case <-deadline:
			return out, err
		case <-time.After(5 * time.Millisecond):
		}
	}
	return out, err
}

func (m *meetingPlacer) RejoinStories(ctx context.Context, view model.StoryView, req model.StoryRejoin) (model.StoryPlacement, error) {
	return m.inner.(model.StoryRejoiner).RejoinStories(ctx, view, req)
}

// TestFirstReportsSavedConcurrentlyMakeOneStory: several polls of one
// workspace carry reports of one new event and save at the same moment,
// each deciding before the others commit if the store lets it. None
// waits on a workspace lock, yet they end in one story: saves whose
// articles share an index term place them one after the other, each
// seeing what the previous one stored.
func TestFirstReportsSavedConcurrentlyMakeOneStory(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		const polls = 4
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		ws, srcs := seedArchived(t, s, polls, t0)
		start := make(chan struct{})
		arrived := make(chan struct{}, 64)
		var wg sync.WaitGroup
		for i := range polls {
			body := wire
			if i%2 == 1 {
				body = ownReport
			}
			arts := []model.NewArticle{storyArticle(fmt.Sprintf("https://s%d.example/quake", i), "Chile quake: no tsunami",
				body, t0.Add(time.Duration(i)*time.Minute), true)}
			plan := &meetingPlacer{inner: placer(t, arts), arrived: arrived, all: polls}
			if _, err := s.ClaimSource(context.Background(), ws.ID, srcs[i].ID, "me", time.Minute); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if _, err := s.SavePoll(context.Background(), model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[i].ID, Owner: "me",
					Articles: arts, Stories: plan,
					Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
					Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}}); err != nil {
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if n := count(t, s, `SELECT COUNT(DISTINCT story_id) FROM feed_articles WHERE external_url LIKE '%/quake'`); n != 1 {
			t.Errorf("the %d reports are in %d stories, want 1", polls, n)
		}
		quake := storyOf(t, s, "https://s0.example/quake")
		if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, quake); n != polls {
			t.Errorf("the story counts %d articles, want %d", n, polls)
		}
	})
}

// TestEventsSavedConcurrentlyStayApart: seven polls of one workspace, all
// deciding before any of them commits, carry three reports of the Chile
// quake, three of the Peru quake and one of a rate rise (PostgreSQL,
// where saves read the term index at once). The rejoins after their
// commits make one story of each event and keep the events apart.
func TestEventsSavedConcurrentlyStayApart(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	const polls = 7
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seedArchived(t, s, polls, t0)
	arrived := make(chan struct{}, 64)
	var wg sync.WaitGroup
	var merged atomic.Int64
	for i := range polls {
		url, title, body := fmt.Sprintf("https://s%d.example/chile", i), "Chile quake: no tsunami", wire
		switch {
		case i == polls-1:
			url, title, body = fmt.Sprintf("https://s%d.example/rates", i), "Central bank raises rates", other
		case i%2 == 1:
			url, title, body = fmt.Sprintf("https://s%d.example/peru", i), "Quake damages adobe houses in Peru",
				fmt.Sprintf("Report %d.\n\n", i)+otherQuake
		case i == 2:
			body = ownReport
		}
		arts := []model.NewArticle{storyArticle(url, title, body, t0.Add(time.Duration(i)*time.Minute), true)}
		plan := &meetingPlacer{inner: placer(t, arts), arrived: arrived, all: polls}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := trySavePoll(s, ws, srcs[i], plan, arts...)
			if err != nil {
				t.Error(err)
			}
			merged.Add(int64(c.Stories.Rejoined + c.Stories.Merged))
		}()
	}
	wg.Wait()
	// Seven stories became three, mostly by rejoins (a save that reached
	// the others only after they committed joined or merged them itself);
	// the saves count every merge.
	if n, want := merged.Load(), count(t, s, `SELECT COUNT(*) FROM stories WHERE workspace_id = ? AND merged_into IS NOT NULL`, ws.ID); n != int64(want) {
		t.Errorf("the saves count %d stories merged, the table holds %d", n, want)
	}
	for _, event := range []string{"chile", "peru"} {
		if n := count(t, s, `SELECT COUNT(DISTINCT story_id) FROM feed_articles WHERE external_url LIKE '%/`+event+`'`); n != 1 {
			t.Errorf("the 3 %s reports are in %d stories, want 1", event, n)
		}
		id := storyOf(t, s, "https://s1.example/peru")
		if event == "chile" {
			id = storyOf(t, s, "https://s0.example/chile")
		}
		if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, id); n != 3 {
			t.Errorf("the %s story counts %d articles, want 3", event, n)
		}
	}
	chile, peru, rates := storyOf(t, s, "https://s0.example/chile"), storyOf(t, s, "https://s1.example/peru"),
		storyOf(t, s, fmt.Sprintf("https://s%d.example/rates", polls-1))
	if chile == peru || rates == chile || rates == peru {
		t.Errorf("stories chile %d, peru %d, rates %d: want three", chile, peru, rates)
	}
}

// waitingPlacer is a placer that, once it has decided (and closed
// decided), waits until another save's article is stored (committed, seen
// from another connection), or gives up after a deadline and fails the
// save.
type waitingPlacer struct {
	inner   model.StoryPlacer
	s       *store.Store
	url     string
	decided chan struct{}
	once    sync.Once
}

func (w *waitingPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	out, err := w.inner.PlaceStories(ctx, view, req)
	w.once.Do(func() { close(w.decided) })
	if err != nil {
		return out, err
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var n int
		if err := w.s.DB().GetContext(ctx, &n, w.s.DB().Rebind(`SELECT COUNT(*) FROM feed_articles WHERE external_url = ?`), w.url); err != nil {
			return out, err
		}
		if n == 1 {
			return out, nil
		}
	}
	return out, fmt.Errorf("%s was not stored while this save was open", w.url)
}

func (w *waitingPlacer) RejoinStories(ctx context.Context, view model.StoryView, req model.StoryRejoin) (model.StoryPlacement, error) {
	return w.inner.(model.StoryRejoiner).RejoinStories(ctx, view, req)
}

// TestSavesSharingTermsDoNotWait: on PostgreSQL, a save whose articles
// share every index term with those of a save still open (decided, not
// committed) is stored meanwhile: saves of one workspace do not queue
// behind each other to read the term index. The two reports of one event
// still end in one story: the second save to commit finds the first
// (it held their shared terms at its commit) and rejoins once it has
// ended.
func TestSavesSharingTermsDoNotWait(t *testing.T) {
	s := testdb.Store(t, store.Postgres)
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	ws, srcs := seedArchived(t, s, 2, t0)
	first := []model.NewArticle{storyArticle("https://s0.example/quake", "Chile quake: no tsunami", wire, t0, true)}
	second := []model.NewArticle{storyArticle("https://s1.example/quake", "Chile quake: no tsunami", ownReport, t0.Add(time.Minute), true)}
	done := make(chan error, 1)
	plan := &waitingPlacer{inner: placer(t, first), s: s, url: "https://s1.example/quake", decided: make(chan struct{})}
	go func() {
		_, err := trySavePoll(s, ws, srcs[0], plan, first...)
		done <- err
	}()
	// The second save reads once the first has read and holds its terms.
	select {
	case <-plan.decided:
	case err := <-done:
		t.Fatalf("the first save ended before it decided: %v", err)
	}
	if _, err := trySavePoll(s, ws, srcs[1], placer(t, second), second...); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT COUNT(DISTINCT story_id) FROM feed_articles WHERE external_url LIKE '%/quake'`); n != 1 {
		t.Errorf("the 2 reports are in %d stories, want 1", n)
	}
	quake := storyOf(t, s, "https://s0.example/quake")
	if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, quake); n != 2 {
		t.Errorf("the story counts %d articles, want 2", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE merged_into = ?`, quake); n != 1 {
		t.Errorf("%d stories merged into the surviving one, want 1", n)
	}
}

// TestPruneStoryTerms: pruning deletes, in bounded batches, the term index
// entries of articles reported before the cut and the document
// frequencies of earlier days, in every workspace, keeps the others, and
// leaves articles and stories alone.
func TestPruneStoryTerms(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		// The first workspace holds more old articles than one prune
		// statement takes; the second, seeded after it, a few.
		for i, old := range []int{520, 3} {
			ws, srcs := seedNamed(t, s, fmt.Sprintf("ws-%d", i), fmt.Sprintf("https://w%d.example/feed", i))
			var arts []model.NewArticle
			for j := range old {
				arts = append(arts, storyArticle(fmt.Sprintf("https://w%d.example/old-%d", i, j), fmt.Sprintf("Old news %d", j),
					fmt.Sprintf("Item %d of the old archive about subject%d.", j, j), t0.Add(-10*24*time.Hour), false))
			}
			arts = append(arts, storyArticle(fmt.Sprintf("https://w%d.example/new", i), "Quake off Chile", wire, t0, false))
			savePoll(t, s, ws, srcs[0], placer(t, arts), arts...)
		}
		// The prune counts rows: an entry each on PostgreSQL, an article
		// each on SQLite (migration 0029).
		// The frequencies' rows: these small workspaces' features are
		// counted in the log, a row per save and week.
		freqRows := func(where string, args ...any) int {
			return count(t, s, `SELECT COUNT(*) FROM story_doc_freq`+where, args...) +
				count(t, s, `SELECT COUNT(*) FROM story_doc_freq_log`+where, args...)
		}
		before := count(t, s, `SELECT COUNT(*) FROM story_terms`) + freqRows("")
		storiesBefore := count(t, s, `SELECT COUNT(*) FROM stories`)
		newTerms := count(t, s, `SELECT COUNT(*) FROM story_term_entries t JOIN feed_articles a ON a.id = t.feed_article_id WHERE a.external_url LIKE '%/new'`)
		newDays := freqRows(` WHERE period >= ?`, model.StoryPeriod(t0))
		n, err := s.PruneStoryTerms(context.Background(), t0.Add(-24*time.Hour), t0.Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		left := count(t, s, `SELECT COUNT(*) FROM story_term_entries`)
		leftRows := count(t, s, `SELECT COUNT(*) FROM story_terms`)
		leftDays := freqRows("")
		if newTerms == 0 || left != newTerms || leftDays != newDays || int64(before-leftRows-leftDays) != n {
			t.Errorf("pruned %d of %d rows, %d terms and %d frequencies left; want only the new articles' %d terms and their day's %d frequencies",
				n, before, left, leftDays, newTerms, newDays)
		}
		if count(t, s, `SELECT COUNT(*) FROM story_term_entries t JOIN feed_articles a ON a.id = t.feed_article_id WHERE a.external_url LIKE '%/new' GROUP BY a.workspace_id HAVING COUNT(*) > 0`) == 0 ||
			count(t, s, `SELECT COUNT(DISTINCT workspace_id) FROM story_term_entries`) != 2 {
			t.Error("pruning took a new article's terms")
		}
		if count(t, s, `SELECT COUNT(*) FROM feed_articles`) != 525 || count(t, s, `SELECT COUNT(*) FROM stories`) != storiesBefore {
			t.Error("pruning touched articles or stories")
		}
	})
}

// TestSQLitePrunesAlongPrimaryKeys: SQLite's story index keeps no index on
// the time alone (migration 0028), so its prune statements must find a
// workspace's old rows along the primary keys, never by scanning a table.
func TestSQLitePrunesAlongPrimaryKeys(t *testing.T) {
	s := testdb.Store(t, store.SQLite)
	ws, _ := seed(t, s)
	if n := count(t, s, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'
		AND name IN ('story_doc_freq_period', 'story_terms_reported')`); n != 0 {
		t.Errorf("%d indexes on the time alone left", n)
	}
	terms, freqs, err := s.ExplainPrunes(context.Background(), ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for what, plan := range map[string]string{"story terms": terms, "document frequencies": freqs} {
		for line := range strings.SplitSeq(plan, "\n") {
			if strings.Contains(line, "SCAN ") && !strings.Contains(line, "json_each") {
				t.Errorf("the prune of %s scans a table:\n%s", what, plan)
			}
		}
		if !strings.Contains(plan, "PRIMARY KEY") {
			t.Errorf("the prune of %s does not use the primary key:\n%s", what, plan)
		}
	}
}

// handPlacer is a StoryPlacer that hands the save a fixed placement, after
// reading the stories through the view it is given; stale makes the
// first that many answers name an older revision of every story.
type handPlacer struct {
	placement model.StoryPlacement
	err       error
	stale     int
	calls     int
	req       model.StoryRequest
}

func (h *handPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	h.req = req
	h.calls++
	var ids []int64
	for _, u := range h.placement.Updates {
		ids = append(ids, u.ID)
	}
	states, err := view.StoryStates(ctx, req.WorkspaceID, ids)
	if err != nil {
		return model.StoryPlacement{}, err
	}
	out := h.placement
	out.Updates = nil
	for i, st := range states {
		u := h.placement.Updates[i]
		u.Revision = st.Revision
		if h.calls <= h.stale {
			u.Revision--
		}
		out.Updates = append(out.Updates, u)
	}
	return out, h.err
}

// TestSaveWritesWhatThePlacerHands: the save asks the poll's StoryPlacer,
// inside its transaction, and writes what it answers: an article joining
// a stored story with its reason, another starting one, and a merge of
// two stored stories (the merged one's articles and content items move,
// it is marked merged and emptied, a story merged into it before now
// resolves to the survivor, the survivor's count adds both up). A placer
// that fails leaves nothing of the poll; one that read a story at an
// older revision is asked again, and one that keeps doing so fails the
// save.
func TestSaveWritesWhatThePlacerHands(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		savePoll(t, s, ws, srcs[0], nil,
			storyArticle("https://a.example/quake", "Quake off Chile", wire, t0, true),
			storyArticle("https://a.example/rates", "Rates up", other, t0, true),
			storyArticle("https://a.example/older", "Rates rise", other, t0, true))
		quake, rates, older := storyOf(t, s, "https://a.example/quake"), storyOf(t, s, "https://a.example/rates"), storyOf(t, s, "https://a.example/older")
		// older was merged into rates by an earlier save.
		if _, err := s.DB().Exec(s.DB().Rebind(`UPDATE stories SET merged_into = ?, article_count = 0 WHERE id = ?`), rates, older); err != nil {
			t.Fatal(err)
		}

		bridge := storyArticle("https://b.example/both", "Quake and rates", wire+"\n\n"+other, t0.Add(time.Hour), true)
		fresh := storyArticle("https://b.example/new", "Something else", "Short.", t0.Add(time.Hour), false)
		placement := model.StoryPlacement{
			Articles: []model.StoryChoice{{StoryID: quake, JoinsArticle: -1, Reason: "bridges the quake and the rates", Terms: []uint32{7, 9}},
				{JoinsArticle: -1, Terms: []uint32{7}}},
			Updates: []model.StoryUpdate{{ID: quake, Centroid: []byte{1, 0}}, {ID: rates}},
			Merges:  []model.StoryMerge{{From: rates, Into: quake}},
		}
		if _, err := s.ClaimSource(context.Background(), ws.ID, srcs[1].ID, "me", time.Minute); err != nil {
			t.Fatal(err)
		}
		// A failed save keeps nothing, the lease included: save again.
		save := func(h *handPlacer) error {
			_, err := s.SavePoll(context.Background(), model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[1].ID, Owner: "me",
				Articles: []model.NewArticle{bridge, fresh}, Stories: h,
				Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
				Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}})
			return err
		}
		kept := func() int {
			return count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE external_url LIKE 'https://b.example/%'`)
		}
		if err := save(&handPlacer{placement: placement, err: fmt.Errorf("no decision")}); err == nil || kept() != 0 {
			t.Fatalf("a failing placer: err %v, and %d of the poll's articles were kept", err, kept())
		}
		always := &handPlacer{placement: placement, stale: 100}
		if err := save(always); err == nil || !strings.Contains(err.Error(), "written by other saves") || always.calls != 4 || kept() != 0 {
			t.Fatalf("a placer always behind: err %v after %d calls, %d articles kept; want a failed save after 4", err, always.calls, kept())
		}
		h := &handPlacer{placement: placement, stale: 1}
		if err := save(h); err != nil {
			t.Fatal(err)
		}
		if h.calls != 2 || len(h.req.Facts) != 2 || h.req.Facts[0] != bridge.Story {
			t.Errorf("the placer was called %d times with %d facts; want twice (once behind) with the poll's facts", h.calls, len(h.req.Facts))
		}
		if got := storyOf(t, s, "https://b.example/both"); got != quake {
			t.Errorf("the bridging article is in story %d, want %d", got, quake)
		}
		if r := text(t, s, `SELECT story_reason FROM feed_articles WHERE external_url = 'https://b.example/both'`); r != "bridges the quake and the rates" {
			t.Errorf("reason %q, want the placer's", r)
		}
		if got := storyOf(t, s, "https://a.example/rates"); got != quake {
			t.Errorf("the merged story's article is in story %d, want %d", got, quake)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM content_items WHERE story_id = ?`, rates); n != 0 {
			t.Errorf("%d content items still carry the merged story", n)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM content_items WHERE story_id = ?`, quake); n != 3 {
			t.Errorf("%d content items carry the surviving story, want 3", n)
		}
		if n := count(t, s, `SELECT article_count FROM stories WHERE id = ?`, quake); n != 3 {
			t.Errorf("the surviving story counts %d articles, want 3", n)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE id = ? AND merged_into = ? AND article_count = 0`, rates, quake); n != 1 {
			t.Error("the merged story is not marked merged into the surviving one")
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE id = ? AND merged_into = ?`, older, quake); n != 1 {
			t.Error("the story merged into the merged one does not resolve to the survivor")
		}
		if fresh := storyOf(t, s, "https://b.example/new"); fresh == quake || fresh == rates {
			t.Errorf("the new article is in story %d, want a story of its own", fresh)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE story_id = ?`, quake); n != 2 {
			t.Errorf("%d term entries of the surviving story, want the bridge's 2", n)
		}
	})
}
