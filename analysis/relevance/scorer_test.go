package relevance

import (
	"github.com/feedpoller/feedpoller/model"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func kw(pairs ...any) []model.Keyword {
	var out []model.Keyword
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, model.Keyword{Term: pairs[i].(string), Weight: pairs[i+1].(float64)})
	}
	return out
}

const (
	titleOnly = 2.0 / 3 // one keyword, title hit, no body hit
	bodyOne   = 0.5 / 3 // one keyword, one body hit
	bodyFull  = 1.0 / 3 // one keyword, three or more body hits
	eps       = 1e-9
)

func TestScore(t *testing.T) {
	schedule := model.RelevanceProfile{Keywords: kw("schedule", 1.0), Threshold: 0.3}
	tests := []struct {
		name        string
		profile     model.RelevanceProfile
		title, body string
		wantScore   float64
		wantMatched []string
		wantExcl    string
		relevant    bool
	}{
		{"no match scores zero", schedule, "Weather today", "Sunny with light wind.", 0, nil, "", false},
		{"title hit is two thirds", schedule, "Schedule changes", "", titleOnly, []string{"schedule"}, "", true},
		{"one body hit is half of the body third", schedule, "News", "The meeting was scheduled.", bodyOne, []string{"schedule"}, "", false},
		{"body hits saturate at three", schedule, "News", "schedule schedules scheduled", bodyFull, []string{"schedule"}, "", true},
		{"ten body hits score as three", schedule, "News", strings.Repeat("scheduling ", 10), bodyFull, []string{"schedule"}, "", true},
		{"title and saturated body score one", schedule, "Scheduling", "schedule, schedules; scheduled!", 1, []string{"schedule"}, "", true},
		{"word forms: scheduling matches schedule", schedule, "SCHEDULING in Kubernetes", "", titleOnly, []string{"schedule"}, "", true},
		{"word forms: policies matches policy",
			model.RelevanceProfile{Keywords: kw("policy", 1.0)}, "New privacy policies announced", "", titleOnly, []string{"policy"}, "", true},
		{"word forms: keyword in plural matches singular",
			model.RelevanceProfile{Keywords: kw("regulations", 1.0)}, "EU to regulate chatbots", "", titleOnly, []string{"regulations"}, "", true},
		{"accents and case ignored",
			model.RelevanceProfile{Keywords: kw("café", 1.0, "naive", 1.0)}, "CAFE culture", "a naïve approach", (2.0 + 0.5) / 6, []string{"café", "naive"}, "", true},
		{"possessive reads as the word",
			model.RelevanceProfile{Keywords: kw("scheduler", 1.0)}, "The scheduler’s new queue", "", titleOnly, []string{"scheduler"}, "", true},
		{"phrase matches consecutive stems",
			model.RelevanceProfile{Keywords: kw("large language model", 1.0)}, "Large Language Models explained", "", titleOnly, []string{"large language model"}, "", true},
		{"phrase survives punctuation between words",
			model.RelevanceProfile{Keywords: kw("large language model", 1.0)}, "A large-language-model benchmark", "", titleOnly, []string{"large language model"}, "", true},
		{"phrase words apart do not match",
			model.RelevanceProfile{Keywords: kw("large language model", 1.0), Threshold: 0.1}, "A large model of language", "language model, large", 0, nil, "", false},
		{"weights: heavy keyword counts more",
			model.RelevanceProfile{Keywords: kw("kubernetes", 3.0, "cron", 1.0)}, "Kubernetes 1.30", "", 3.0 * 2 / (3 * 4), []string{"kubernetes"}, "", true},
		{"weights: light keyword counts less",
			model.RelevanceProfile{Keywords: kw("kubernetes", 3.0, "cron", 1.0)}, "Cron tricks", "", 1.0 * 2 / (3 * 4), []string{"cron"}, "", true},
		{"matched terms in profile order, not text order",
			model.RelevanceProfile{Keywords: kw("alpha", 1.0, "beta", 1.0, "gamma", 1.0)}, "gamma beta alpha", "", 1 * 2.0 / 3, []string{"alpha", "beta", "gamma"}, "", true},
		{"zero weight counts as the default 1",
			model.RelevanceProfile{Keywords: kw("go", 0.0, "rust", 1.0)}, "Go 1.26 released", "", 2.0 / 6, []string{"go"}, "", true},
		{"exclusion in body zeroes the score",
			model.RelevanceProfile{Keywords: kw("schedule", 1.0), Exclusions: []string{"sponsored"}}, "Scheduling tips", "This post is sponsored.", 0, []string{"schedule"}, "sponsored", false},
		{"exclusion phrase and word forms",
			model.RelevanceProfile{Keywords: kw("ai", 1.0), Exclusions: []string{"casino", "press release"}}, "AI startup: Press Releases", "", 0, []string{"ai"}, "press release", false},
		{"first exclusion in profile order is reported",
			model.RelevanceProfile{Keywords: kw("ai", 1.0), Exclusions: []string{"crypto", "casino"}}, "casino crypto ai", "", 0, []string{"ai"}, "crypto", false},
		{"exclusion must match whole words",
			model.RelevanceProfile{Keywords: kw("ai", 1.0), Exclusions: []string{"ad"}}, "AI roadmap", "", titleOnly, []string{"ai"}, "", true},
		{"empty profile promotes everything",
			model.RelevanceProfile{Threshold: 1}, "Anything", "at all", 1, nil, "", true},
		{"keywords without words count as none",
			model.RelevanceProfile{Keywords: kw("!!!", 1.0, " ", 2.0), Threshold: 0.9}, "Anything", "", 1, nil, "", true},
		{"exclusions still apply without keywords",
			model.RelevanceProfile{Exclusions: []string{"horoscope"}}, "Your horoscope for Monday", "", 0, nil, "horoscope", false},
		{"without keywords unexcluded is promoted",
			model.RelevanceProfile{Exclusions: []string{"horoscope"}, Threshold: 1}, "Markets", "", 1, nil, "", true},
		{"threshold zero promotes unmatched articles too",
			model.RelevanceProfile{Keywords: kw("schedule", 1.0)}, "Weather", "", 0, nil, "", true},
		{"score exactly at threshold is relevant",
			model.RelevanceProfile{Keywords: kw("schedule", 1.0), Threshold: 2.0 / 3}, "Schedule", "", titleOnly, []string{"schedule"}, "", true},
		{"score just below threshold is not",
			model.RelevanceProfile{Keywords: kw("schedule", 1.0), Threshold: 0.7}, "Schedule", "", titleOnly, []string{"schedule"}, "", false},
		{"Han term matches inside unspaced text",
			model.RelevanceProfile{Keywords: kw("人工知能", 1.0)}, "最新の人工知能ニュース", "", titleOnly, []string{"人工知能"}, "", true},
		{"Han characters out of order do not match",
			model.RelevanceProfile{Keywords: kw("人工知能", 1.0), Threshold: 0.1}, "知能人工", "", 0, nil, "", false},
		{"non-Latin words fold case",
			model.RelevanceProfile{Keywords: kw("Πολιτική", 1.0)}, "νέα ΠΟΛΙΤΙΚΉ", "", titleOnly, []string{"Πολιτική"}, "", true},
		{"digits are words",
			model.RelevanceProfile{Keywords: kw("GPT-4", 1.0)}, "What gpt 4 can do", "GPT-5 arrives", titleOnly, []string{"GPT-4"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScorer(tt.profile)
			r := s.Score(tt.title, tt.body)
			if math.Abs(r.Score-tt.wantScore) > eps {
				t.Errorf("Score = %v, want %v (%s)", r.Score, tt.wantScore, r)
			}
			if !slices.Equal(r.Matched, tt.wantMatched) {
				t.Errorf("Matched = %q, want %q", r.Matched, tt.wantMatched)
			}
			if r.Excluded != tt.wantExcl {
				t.Errorf("Excluded = %q, want %q", r.Excluded, tt.wantExcl)
			}
			if got := s.Relevant(r); got != tt.relevant {
				t.Errorf("Relevant = %v, want %v (score %v, threshold %v)", got, tt.relevant, r.Score, tt.profile.Threshold)
			}
		})
	}
}

func TestTitleOutranksBody(t *testing.T) {
	s := NewScorer(model.RelevanceProfile{Keywords: kw("kubernetes", 1.0, "scheduler", 1.0)})
	inTitle := s.Score("Kubernetes scheduler internals", "A look at how pods get placed.")
	inBody := s.Score("Internals", strings.Repeat("The Kubernetes scheduler places pods. ", 20))
	if !(inTitle.Score > inBody.Score) {
		t.Fatalf("title match %v should outrank body-only match %v", inTitle, inBody)
	}
	// A long body cannot reach what one title mention gives.
	if inBody.Score > 1.0/3+eps {
		t.Fatalf("body-only score %v exceeds the body share 1/3", inBody.Score)
	}
}

func TestScoreRangeAndDeterminism(t *testing.T) {
	p := model.RelevanceProfile{
		Keywords:   kw("go", 5.0, "release", 2.0, "garbage collector", 1.0, "generic", 100.0, "x", math.Inf(1), "y", math.NaN()),
		Exclusions: []string{"", "  "},
		Threshold:  math.NaN(),
	}
	s := NewScorer(p)
	title := "Go releases generics and a new garbage collector (x, y)"
	body := strings.Repeat("Go go GO release generic garbage collector x y ", 50)
	first := s.Score(title, body)
	if first.Score < 0 || first.Score > 1 || math.IsNaN(first.Score) {
		t.Fatalf("score %v out of [0,1]", first.Score)
	}
	if math.Abs(first.Score-1) > eps {
		t.Fatalf("everything matched in title and body: score %v, want 1", first.Score)
	}
	if !s.Relevant(first) {
		t.Fatalf("NaN threshold should act as 0")
	}
	// Shared across goroutines, as the poller's workers share it.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				r := s.Score(title, body)
				if r.Score != first.Score || !slices.Equal(r.Matched, first.Matched) {
					t.Errorf("score changed between calls: %v vs %v", r, first)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestResultString(t *testing.T) {
	r := Result{Score: 2.0 / 3, Matched: []string{"schedule", "cron"}, Excluded: "ad"}
	if got, want := r.String(), "0.67 [schedule, cron] excluded by ad"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}
