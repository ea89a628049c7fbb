package pipeline

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/relevance"
	"github.com/feedpoller/feedpoller/model"
)

var scheduling = model.RelevanceProfile{Keywords: []model.Keyword{{Term: "scheduler", Weight: 2}, {Term: "cron", Weight: 1}},
	Exclusions: []string{"sponsored"}, Threshold: 0.3}

// TestScore: each article gets its score and the profile terms it
// matched, from its title and its Markdown.
func TestScore(t *testing.T) {
	tests := []struct {
		title, body string
		score       float64
		matched     []string
	}{
		{"A new scheduler", "How the cron rewrite went.", (2*2 + 1*0.5) / 9, []string{"scheduler", "cron"}},
		{"Cron tips", "", 1 * 2.0 / 9, []string{"cron"}},
		{"The scheduler, sponsored", "", 0, []string{"scheduler"}},
		{"Weather", "Rain all week.", 0, nil},
	}
	var items []item
	for _, tt := range tests {
		items = append(items, item{art: model.FeedArticle{Title: tt.title, ContentMarkdown: tt.body}})
	}
	score(relevance.NewScorer(scheduling), items)
	for i, tt := range tests {
		a := items[i].art
		if math.Abs(a.RelevanceScore-tt.score) > 1e-9 || !slices.Equal(a.MatchedTerms, tt.matched) || items[i].rel.Score != a.RelevanceScore {
			t.Errorf("%q: score %v, matched %v; want %v, %v", tt.title, a.RelevanceScore, a.MatchedTerms, tt.score, tt.matched)
		}
	}
}

// TestProfileCache: a workspace's profile is read once per TTL, so a
// profile edited over the API takes effect within it; a failed read is
// not cached.
func TestProfileCache(t *testing.T) {
	ws := &fakeWorkspaces{byID: map[int64]model.Workspace{1: {ID: 1, Profile: scheduling}}}
	c := &ProfileCache{Workspaces: ws, TTL: time.Hour}
	ctx := context.Background()
	for range 3 {
		sc, err := c.Scorer(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r := sc.Score("scheduler", ""); !sc.Relevant(r) {
			t.Fatalf("cached scorer does not score with the profile: %v", r)
		}
	}
	if ws.reads != 1 {
		t.Errorf("%d reads within the TTL, want 1", ws.reads)
	}
	if _, err := c.Scorer(ctx, 2); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("unknown workspace: err %v", err)
	}
	if _, err := c.Scorer(ctx, 2); err == nil || ws.reads != 3 {
		t.Errorf("a failed read was cached (%d reads)", ws.reads)
	}

	fresh := &ProfileCache{Workspaces: ws} // no TTL: read every time
	ws.reads = 0
	_, _ = fresh.Scorer(ctx, 1)
	ws.mu.Lock()
	ws.byID[1] = model.Workspace{ID: 1, Profile: model.RelevanceProfile{Keywords: []model.Keyword{{Term: "weather", Weight: 1}}}}
	ws.mu.Unlock()
	sc, _ := fresh.Scorer(ctx, 1)
	if r := sc.Score("Weather", ""); ws.reads != 2 || !slices.Equal(r.Matched, []string{"weather"}) {
		t.Errorf("edited profile not read: %d reads, %v", ws.reads, r)
	}
}
