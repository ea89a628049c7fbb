package digest

import (
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/model"
)

type setArticle struct {
	ID, Event, Kind, Outlet, URL, Title, Markdown string
	PublishedAt                                   time.Time `json:"published_at"`
}

func loadSet(t testing.TB) []setArticle {
	t.Helper()
	b, err := os.ReadFile("../stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	var set struct{ Articles []setArticle }
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	return set.Articles
}

// outletTiers gives the set's outlets different tiers, as domain rules
// or admins would.
var outletTiers = map[string]model.Tier{
	"Newswire": 3, "The Daily Ledger": 4, "Metro Post": 5, "Coastal Herald": 5, "Tech Dispatch": 4,
	"The Morning Brief": 5, "World Report Today": 5, "KXRT News": 4, "Pacific Observer": 3,
}

// storySetInput is a digest input holding the labelled story set: one
// story per event, every article with its summary, its outlet as source.
func storySetInput(t testing.TB) Input {
	arts := loadSet(t)
	byEvent := map[string][]model.DigestArticle{}
	var events []string
	sources := map[string]int64{}
	for i, a := range arts {
		if _, ok := byEvent[a.Event]; !ok {
			events = append(events, a.Event)
		}
		if sources[a.Outlet] == 0 {
			sources[a.Outlet] = int64(len(sources) + 1)
		}
		pub := a.PublishedAt
		byEvent[a.Event] = append(byEvent[a.Event], model.DigestArticle{
			ID: int64(i + 1), URL: a.URL, Title: a.Title, Summary: summary.Summarize(a.Markdown, summary.Options{}),
			SourceID: sources[a.Outlet], SourceTitle: a.Outlet, Tier: outletTiers[a.Outlet],
			Relevance: 0.3 + float64(i%7)/10, PublishedAt: &pub, StoredAt: pub.Add(5 * time.Minute),
		})
	}
	in := Input{
		Workspace:       Workspace{ID: 7, Name: "world news", DecayClass: model.DecayFast},
		Window:          Window{Since: time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)},
		GeneratedAt:     time.Date(2025, 11, 1, 0, 0, 5, 0, time.UTC),
		SourcesAnalyzed: len(sources) + 2,
	}
	sort.Strings(events)
	for i, e := range events {
		in.Stories = append(in.Stories, Story{ID: int64(100 + i), Articles: byEvent[e]})
	}
	last := time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)
	polled := time.Date(2025, 10, 31, 23, 0, 0, 0, time.UTC)
	in.Sources = []model.DigestSource{
		{ID: 1, URL: "https://newswire.example/feed.xml", Title: "Newswire", Active: true, LastStatus: "ok", ArticlesInWindow: 40},
		{ID: 90, URL: "https://broken.example/rss", Title: "Broken | Feed", Active: true, LastStatus: "error",
			LastError: "HTTP 503 Service Unavailable", ConsecutiveFailures: 3, LastPolledAt: &polled},
		{ID: 91, URL: "https://quiet.example/atom", Title: "Quiet blog", Active: true, LastStatus: "not_modified", LastArticleAt: &last},
		{ID: 92, URL: "https://off.example/rss", Title: "Paused", Active: false, LastStatus: "error"},
	}
	return in
}

func cl100k(t testing.TB) *tokens.Counter {
	t.Helper()
	c, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
