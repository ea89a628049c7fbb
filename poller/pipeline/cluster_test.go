package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

// fakeView is a workspace's stories in memory, as the store's view reads
// them inside a save: one stored story and its article's index terms.
type fakeView struct {
	postings []model.StoryPosting
	states   []model.StoryState
	err      error
	calls    int
}

func (f *fakeView) StoryDocFreq(context.Context, int64, []uint32, time.Time) (*model.StoryDocFreq, error) {
	f.calls++
	return &model.StoryDocFreq{Docs: 1, Terms: map[uint32]int{}}, f.err
}

func (f *fakeView) StoryPostings(_ context.Context, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	f.calls++
	var out []model.StoryPosting
	for _, p := range f.postings {
		if slices.Contains(q.Terms, p.Term) && !p.ReportedAt.Before(q.Since) {
			out = append(out, p)
		}
	}
	return out, f.err
}

func (f *fakeView) StoryStates(context.Context, int64, []int64) ([]model.StoryState, error) {
	f.calls++
	return f.states, f.err
}

// StoryMembers answers article 500 without a profile, as one stored
// before profiles were kept: nothing to re-examine.
func (f *fakeView) StoryMembers(context.Context, model.StoryMemberQuery) ([]model.StoryMember, error) {
	f.calls++
	var out []model.StoryMember
	if len(f.states) > 0 {
		out = append(out, model.StoryMember{ArticleID: 500, StoryID: 77})
	}
	return out, f.err
}

// storedStory is a view holding story 77 of article 500, the given
// report, reported at at.
func storedStory(t *testing.T, title, body string, at time.Time) *fakeView {
	t.Helper()
	g, err := stories.Group([]stories.Arrival{{Profile: stories.NewProfile(title, body), At: at}}, nil,
		stories.NewVocabulary(), stories.GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := &fakeView{states: []model.StoryState{{ID: 77, Articles: 1, Revision: 3, Centroid: stories.EncodeCentroid(g.Started[0])}}}
	for _, term := range g.Placements[0].Terms {
		v.postings = append(v.postings, model.StoryPosting{Term: term, ArticleID: 500, StoryID: 77, ReportedAt: at})
	}
	return v
}

// paragraphs is HTML of the given paragraphs.
func paragraphs(ps ...string) string {
	return "<p>" + strings.Join(ps, "</p><p>") + "</p>"
}

var (
	quake = []string{
		"A magnitude 6.8 earthquake struck off the coast of central Chile early on Tuesday, shaking buildings in the capital Santiago and the port city of Valparaiso, the U.S. Geological Survey said.",
		"The quake hit at 3:12 a.m. local time at a depth of 31 kilometres, about 48 km west of Valparaiso, according to the USGS. Chile's navy said the earthquake did not meet the conditions to generate a tsunami along the coast.",
		"The national disaster agency said there were no immediate reports of deaths. Power was cut to about 120,000 homes in the Valparaiso region and some residents of coastal neighbourhoods left their homes as a precaution.",
	}
	rates = []string{
		"The central bank raised its benchmark interest rate by a quarter point to 4.75 percent on Wednesday, its third increase this year, saying inflation of 6.1 percent was still far above its target of 2 percent.",
		"Governor Elena Marsh told reporters the board had weighed a larger move of half a point but judged that the economy, which grew 0.3 percent in the last quarter, was cooling. Markets had priced in the quarter-point rise and the currency barely moved.",
		"Economists at three banks said they expected one more increase before the end of the year, while exporters warned that a stronger currency would hurt their sales abroad in the coming months.",
	}
)

// TestRunPlacesStories: a batch reads nothing of the stories itself; the
// placer it hands the save decides from what the save's view reads, in
// a fixed number of reads. A differently worded report of a stored event
// joins its story (with the stored story's revision to check, and a
// reason naming the article and shared words), two reports of a new
// event make one new story, and every article gets its extractive
// summary and reported time.
func TestRunPlacesStories(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	view := storedStory(t, "Strong quake shakes Valparaiso and Santiago, Chile navy rules out tsunami",
		"An earthquake of magnitude 6.8 hit the sea off Valparaiso in central Chile on Tuesday. The USGS put the depth at 31 kilometres. Chile's navy said no tsunami was expected, and 120,000 homes lost power.", t0.Add(-time.Hour))

	p, err := New(Options{Lookup: &fakeLookup{}, Profiles: fakeProfiles{1: model.RelevanceProfile{}}, MinWords: 50,
		MaxMarkdownBytes: 1 << 20, Log: slog.New(slog.DiscardHandler), PlaceStories: true,
		StoryOptions: stories.GroupOptions{Window: 48 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	item := func(link, title string, at time.Time, body []string) sources.FeedItem {
		it := feedItem(link, link, title, paragraphs(body...))
		it.PublishedAt = &at
		return it
	}
	res, err := p.Run(context.Background(), Batch{Source: rssSource, Items: []sources.FeedItem{
		item("https://news.example.com/rates-1", "Central bank raises rates to 4.75 percent", t0.Add(2*time.Hour), rates),
		item("https://news.example.com/quake", "Chile quake: no tsunami expected", t0, quake),
		item("https://news.example.com/rates-2", "Rates up a quarter point", t0.Add(3*time.Hour), append([]string{"Share this article"}, rates...)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if view.calls != 0 || res.Stories == nil {
		t.Fatalf("the batch read the stories %d times before the save, placer %v; want none and a placer", view.calls, res.Stories)
	}
	placed, err := res.Stories.PlaceStories(context.Background(), view, model.StoryRequest{WorkspaceID: 1,
		Facts: make([]*model.StoryFacts, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if view.calls != 4 {
		t.Errorf("%d reads, want 4 (document frequencies, term index, stories, members to re-examine)", view.calls)
	}
	r1, q, r2 := placed.Articles[0], placed.Articles[1], placed.Articles[2]
	if q.StoryID != 77 || !strings.Contains(q.Reason, "article 500") || !strings.Contains(q.Reason, `"valparaiso"`) {
		t.Errorf("the quake report: %+v, want to join stored story 77 through article 500, sharing Valparaiso", q)
	}
	if len(placed.Updates) != 1 || placed.Updates[0].ID != 77 || placed.Updates[0].Revision != 3 || len(placed.Updates[0].Centroid) == 0 {
		t.Errorf("updates %+v, want story 77 at the revision read, with its new centroid", placed.Updates)
	}
	if r1.JoinsArticle != -1 || r1.StoryID != 0 || r2.JoinsArticle != 0 || r2.Reason == "" || len(placed.Started[0]) == 0 {
		t.Errorf("rates reports: %+v and %+v, want the first to start a story (with a centroid) and the second to join it", r1, r2)
	}
	for _, c := range placed.Articles {
		if len(c.Terms) == 0 || len(c.Terms) > stories.DefaultIndexTerms {
			t.Errorf("%d index terms, want 1 to %d", len(c.Terms), stories.DefaultIndexTerms)
		}
	}
	for _, a := range res.Articles {
		if a.Article.ExtractiveSummary == "" || a.Article.ReportedAt == nil || !a.Article.ReportedAt.Equal(a.Story.ReportedAt) {
			t.Errorf("%s: summary %q, reported %v", a.Article.ExternalURL, a.Article.ExtractiveSummary, a.Article.ReportedAt)
		}
	}
	if !strings.HasPrefix(res.Articles[1].Article.ExtractiveSummary, "A magnitude 6.8 earthquake struck") {
		t.Errorf("quake summary %q, want its lead among its sentences", res.Articles[1].Article.ExtractiveSummary)
	}
}

// TestPlaceStoriesReadFailure: a failed read fails the placement with the
// cause kept, so the save fails and nothing of the poll is kept.
func TestPlaceStoriesReadFailure(t *testing.T) {
	down := errors.New("connection refused")
	p, err := New(Options{Lookup: &fakeLookup{}, Profiles: fakeProfiles{1: model.RelevanceProfile{}}, MaxMarkdownBytes: 1 << 20,
		Log: slog.New(slog.DiscardHandler), PlaceStories: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), Batch{Source: rssSource, Items: []sources.FeedItem{
		feedItem("https://news.example.com/a", "a", "A", paragraphs(quake...))}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = res.Stories.PlaceStories(context.Background(), &fakeView{err: down}, model.StoryRequest{WorkspaceID: 1,
		Facts: make([]*model.StoryFacts, 1)})
	if !errors.Is(err, down) {
		t.Fatalf("err %v, want the read's", err)
	}
}
