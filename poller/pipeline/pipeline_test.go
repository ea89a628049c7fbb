package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

// TestRunIsOneLookupPerBatch: a batch of twenty items, some stored by URL,
// some by GUID, one repeated, costs one lookup of all its URLs and GUIDs;
// what is new comes back in feed order, scored, the relevant ones
// promoted.
func TestRunIsOneLookupPerBatch(t *testing.T) {
	var items []sources.FeedItem
	for i := range 20 {
		title := fmt.Sprintf("Story %d", i)
		if i%2 == 0 {
			title += " about kubernetes"
		}
		items = append(items, feedItem(fmt.Sprintf("https://news.example.com/%d?utm_source=feed", i), fmt.Sprint(i), title, longHTML(title)))
	}
	items = append(items, items[3]) // the same URL twice in one feed
	lookup := &fakeLookup{stored: []model.KnownArticle{
		stored(1, "https://news.example.com/0", ""),   // known by URL
		stored(2, "https://elsewhere.example/1", "1"), // known by GUID
	}}
	p := newTest(t, lookup, nil, nil, model.RelevanceProfile{Keywords: []model.Keyword{{Term: "kubernetes", Weight: 1}}, Threshold: 0.5})

	res, err := p.Run(context.Background(), Batch{Source: rssSource, Items: items})
	if err != nil {
		t.Fatal(err)
	}
	if len(lookup.calls) != 1 || len(lookup.calls[0].urls) != 20 || len(lookup.calls[0].guids) != 20 {
		t.Fatalf("lookups %+v, want one of 20 URLs and 20 GUIDs", lookup.calls)
	}
	if res.Duplicates != 3 || len(res.Articles) != 18 {
		t.Fatalf("%d articles, %d duplicates; want 18 and 3", len(res.Articles), res.Duplicates)
	}
	for i, na := range res.Articles {
		n := i + 2 // 0 and 1 were known
		a := na.Article
		if a.ExternalURL != fmt.Sprintf("https://news.example.com/%d", n) {
			t.Errorf("article %d stored under %s (tracking parameters must go)", i, a.ExternalURL)
		}
		if a.ExtractionMethod != MethodFeedContent || a.WordCount < 50 || a.ContentTextHash == "" {
			t.Errorf("article %s: method %q, %d words, hash %q", a.ExternalURL, a.ExtractionMethod, a.WordCount, a.ContentTextHash)
		}
		relevant := n%2 == 0
		if na.Promote != relevant || (a.RelevanceScore > 0) != relevant || slices.Equal(a.MatchedTerms, []string{"kubernetes"}) != relevant {
			t.Errorf("article %s: promote %v, score %v, matched %v; want relevant=%v", a.ExternalURL, na.Promote,
				a.RelevanceScore, a.MatchedTerms, relevant)
		}
	}
}

// TestRunErrorsAreTheDatabases: a failed lookup or profile read fails the
// batch with the cause kept; a batch with nothing new reads no profile.
func TestRunErrorsAreTheDatabases(t *testing.T) {
	down := errors.New("connection refused")
	items := []sources.FeedItem{feedItem("https://news.example.com/a", "a", "A", longHTML("a"))}

	p := newTest(t, &fakeLookup{err: down}, nil, nil, model.RelevanceProfile{})
	if _, err := p.Run(context.Background(), Batch{Source: rssSource, Items: items}); !errors.Is(err, down) {
		t.Errorf("lookup failure: err %v, want it to wrap %v", err, down)
	}

	noProfile := rssSource
	noProfile.WorkspaceID = 7 // fakeProfiles knows only workspace 1
	p = newTest(t, &fakeLookup{}, nil, nil, model.RelevanceProfile{})
	_, err := p.Run(context.Background(), Batch{Source: noProfile, Items: items})
	if err == nil || !strings.Contains(err.Error(), "relevance profile of workspace 7") {
		t.Errorf("profile failure: err %v, want one naming the workspace", err)
	}

	known := &fakeLookup{stored: []model.KnownArticle{stored(1, "https://news.example.com/a", "")}}
	p = newTest(t, known, nil, nil, model.RelevanceProfile{})
	res, err := p.Run(context.Background(), Batch{Source: noProfile, Items: items})
	if err != nil || res.Duplicates != 1 || len(res.Articles) != 0 {
		t.Errorf("nothing new: %+v, %v; want one duplicate and no profile read", res, err)
	}
}

// TestRunStopsFetchingAtFetchBy: page fetches end at the batch's FetchBy;
// the items are kept with what the feed itself carried.
func TestRunStopsFetchingAtFetchBy(t *testing.T) {
	pages := &fakePages{pages: map[string]string{"https://news.example.com/a": pageHTML("Alpha", "")}}
	p := newTest(t, &fakeLookup{}, pages, nil, model.RelevanceProfile{})
	items := []sources.FeedItem{{URL: "https://news.example.com/a", Title: "Alpha", Summary: "<p>Short teaser.</p>"}}

	res, err := p.Run(context.Background(), Batch{Source: rssSource, Items: items, FetchBy: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Articles) != 1 || res.Articles[0].Article.ExtractionMethod != MethodSummary {
		t.Fatalf("articles %+v, want the item kept with its summary", res.Articles)
	}

	res, err = p.Run(context.Background(), Batch{Source: rssSource, Items: items})
	if err != nil || len(res.Articles) != 1 || res.Articles[0].Article.ExtractionMethod != MethodArticlePage {
		t.Fatalf("without a deadline: %+v, %v; want the article page", res.Articles, err)
	}
}

func TestNewRefusesUnusableOptions(t *testing.T) {
	good := Options{Lookup: &fakeLookup{}, Profiles: fakeProfiles{}, MinWords: 50, MaxArticleFetches: 10, MaxMarkdownBytes: 4096}
	if _, err := New(good); err != nil {
		t.Fatalf("good options: %v", err)
	}
	zero := good
	zero.MinWords, zero.MaxArticleFetches = 0, 0
	if _, err := New(zero); err != nil {
		t.Fatalf("no minimum and no page fetches are valid choices: %v", err)
	}
	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"no lookup", func(o *Options) { o.Lookup = nil }, "an article lookup is required"},
		{"no profiles", func(o *Options) { o.Profiles = nil }, "relevance profiles are required"},
		{"negative words", func(o *Options) { o.MinWords = -1 }, "MinWords -1 is negative"},
		{"negative fetches", func(o *Options) { o.MaxArticleFetches = -2 }, "MaxArticleFetches -2 is negative"},
		{"no Markdown", func(o *Options) { o.MaxMarkdownBytes = 0 }, "MaxMarkdownBytes must be more than 0"},
		{"story threshold", func(o *Options) { o.StoryOptions.Threshold = 1.5 }, "threshold 1.5 is outside (0, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.change(&o)
			if _, err := New(o); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}
