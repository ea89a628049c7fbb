package pipeline

import (
	"testing"

	"github.com/feedpoller/feedpoller/analysis/relevance"
	"github.com/feedpoller/feedpoller/model"
)

// TestPromote: an article is promoted when it reaches the profile's
// threshold and no exclusion fired; every article is stored either way.
func TestPromote(t *testing.T) {
	tests := []struct {
		title   string
		promote bool
	}{
		{"Scheduler deep dive", true},       // 2×2 / 9 = 0.44
		{"Cron tips", false},                // 1×2 / 9 = 0.22, under 0.3
		{"The scheduler, sponsored", false}, // excluded
		{"Weather", false},
	}
	var items []item
	for _, tt := range tests {
		items = append(items, item{art: model.FeedArticle{Title: tt.title}})
	}
	sc := relevance.NewScorer(scheduling)
	score(sc, items)
	promote(sc, items)
	arts := toStore(items)
	if len(arts) != len(tests) {
		t.Fatalf("%d articles to store, want %d", len(arts), len(tests))
	}
	for i, tt := range tests {
		if arts[i].Article.Title != tt.title || arts[i].Promote != tt.promote {
			t.Errorf("%q: promote %v, want %v", arts[i].Article.Title, arts[i].Promote, tt.promote)
		}
	}
	// A profile without keywords promotes everything not excluded.
	everything := relevance.NewScorer(model.RelevanceProfile{Exclusions: []string{"horoscope"}})
	items = []item{{art: model.FeedArticle{Title: "Anything"}}, {art: model.FeedArticle{Title: "Your horoscope"}}}
	score(everything, items)
	promote(everything, items)
	if !items[0].promote || items[1].promote {
		t.Errorf("no-keyword profile: promote %v, %v; want true, false", items[0].promote, items[1].promote)
	}
}
