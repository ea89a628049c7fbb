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

// fakeIndex answers StoryCandidates from a stories.MemIndex, as the store
// answers from its band table, and records each call.
type fakeIndex struct {
	mem   *stories.MemIndex
	gen   int64
	err   error
	calls []indexCall
}

type indexCall struct {
	keys  []int64
	since time.Time
}

func (f *fakeIndex) StoryCandidates(ctx context.Context, q model.StoryQuery) (*model.StoryLookup, error) {
	f.calls = append(f.calls, indexCall{keys: slices.Clone(q.Keys), since: q.Since})
	if f.err != nil {
		return nil, f.err
	}
	c, err := f.mem.Candidates(ctx, q.WorkspaceID, q.Keys, q.Since)
	out := &model.StoryLookup{Generation: f.gen}
	for _, m := range c {
		sig, merr := m.Signature.MarshalBinary()
		if merr != nil {
			return nil, merr
		}
		out.Candidates = append(out.Candidates, model.StoryCandidate{ArticleID: m.ArticleID, StoryID: m.StoryID,
			ReportedAt: m.At, Signature: sig})
	}
	return out, err
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

// TestRunPlacesStoriesWithOneLookup: a batch's stories cost one lookup of
// the union of its articles' band keys, from the earliest reported time
// less the window. A copy of a stored report joins its story, two copies
// of a new report make one new story, and every article gets its
// extractive summary and reported time.
func TestRunPlacesStoriesWithOneLookup(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	idx := &fakeIndex{mem: stories.NewMemIndex(), gen: 41}
	stored := stories.Sign("Magnitude 6.8 earthquake strikes off central Chile", strings.Join(quake, "\n\n"))
	idx.mem.Add(1, 500, 77, t0.Add(-time.Hour), stored)

	p, err := New(Options{Lookup: &fakeLookup{}, Profiles: fakeProfiles{1: model.RelevanceProfile{}}, MinWords: 50,
		MaxMarkdownBytes: 1 << 20, Log: slog.New(slog.DiscardHandler), Stories: idx, StoryOptions: stories.Options{Window: 48 * time.Hour}})
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
	if len(idx.calls) != 1 {
		t.Fatalf("%d lookups, want 1", len(idx.calls))
	}
	var keys []int64
	for _, a := range res.Articles {
		keys = append(keys, a.Story.Keys...)
	}
	if !slices.Equal(idx.calls[0].keys, keys) || !idx.calls[0].since.Equal(t0.Add(-48*time.Hour)) {
		t.Errorf("lookup of %d keys since %v; want the batch's %d keys since %v", len(idx.calls[0].keys), idx.calls[0].since,
			len(keys), t0.Add(-48*time.Hour))
	}
	// The save hands the placement a generation: the one after the
	// lookup's keeps the decision, without another lookup.
	placed, err := res.Stories.PlaceStories(context.Background(), idx, model.StoryRequest{WorkspaceID: 1, Generation: 42,
		Facts: make([]*model.StoryFacts, 3)})
	if err != nil || len(idx.calls) != 1 {
		t.Fatalf("placement at the next generation: %v, %d lookups; want the decision and no other lookup", err, len(idx.calls))
	}
	r1, q, r2 := placed.Articles[0], placed.Articles[1], placed.Articles[2]
	if q.StoryID != 77 || !strings.Contains(q.Reason, "article 500") {
		t.Errorf("the quake copy: %+v, want to join stored story 77 through article 500", q)
	}
	if r1 != model.NewStory() || r2.JoinsArticle != 0 || r2.Reason == "" {
		t.Errorf("rates reports: %+v and %+v, want the first to start a story and the second to join it", r1, r2)
	}
	// Another save came in between: the placement looks up again.
	if _, err := res.Stories.PlaceStories(context.Background(), idx, model.StoryRequest{WorkspaceID: 1, Generation: 43,
		Facts: make([]*model.StoryFacts, 3)}); err != nil || len(idx.calls) != 2 {
		t.Fatalf("placement two generations on: %v, %d lookups; want a second lookup", err, len(idx.calls))
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

// TestRunStoryLookupFailure: a failed candidate lookup fails the batch
// with the cause kept, as the dedup lookup does.
func TestRunStoryLookupFailure(t *testing.T) {
	down := errors.New("connection refused")
	p, err := New(Options{Lookup: &fakeLookup{}, Profiles: fakeProfiles{1: model.RelevanceProfile{}}, MaxMarkdownBytes: 1 << 20,
		Log: slog.New(slog.DiscardHandler), Stories: &fakeIndex{mem: stories.NewMemIndex(), err: down}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Run(context.Background(), Batch{Source: rssSource, Items: []sources.FeedItem{
		feedItem("https://news.example.com/a", "a", "A", paragraphs(quake...))}})
	if !errors.Is(err, down) || !strings.Contains(err.Error(), "stories of source 1") {
		t.Fatalf("err %v, want the lookup's, naming the source", err)
	}
}
