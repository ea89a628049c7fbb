package poller_test

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller/pipeline"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

// TestStoryGroupingThroughTheStore re-checks story grouping on the
// labelled story set through the path the daemon takes: each article a
// feed item of its outlet's source (its Markdown as the feed's HTML),
// through the pipeline (extraction, signature, one candidate lookup in
// the store's band table, the decision) and the poll's save, in the
// order the articles were reported. The stories stored in feed_articles
// must meet the targets: pairwise precision ≥ 0.98, recall ≥ 0.90. The
// story window is widened to the set's ten months, as in the stories
// package's own evaluation, so every hard negative is compared.
func TestStoryGroupingThroughTheStore(t *testing.T) {
	arts, err := storyfeeds.Load("../analysis/stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(arts, func(i, j int) bool { return arts[i].PublishedAt.Before(arts[j].PublishedAt) })
	testdb.EachWorkspace(t, "storyset", func(t *testing.T, st *store.Store, ws *model.Workspace) {
		ctx := context.Background()
		srcs := map[string]*model.FeedSource{}
		for _, o := range storyfeeds.Outlets(arts) {
			src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://feeds.example" + storyfeeds.FeedPath(o),
				SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}
			if err := st.CreateSource(ctx, src); err != nil {
				t.Fatal(err)
			}
			srcs[o] = src
		}
		p, err := pipeline.New(pipeline.Options{Lookup: st, Profiles: &pipeline.ProfileCache{Workspaces: st},
			MaxMarkdownBytes: 1 << 20, Log: slog.New(slog.DiscardHandler),
			Stories: st, StoryOptions: stories.Options{Window: 400 * 24 * time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range arts {
			html, err := a.HTML()
			if err != nil {
				t.Fatal(err)
			}
			pub := a.PublishedAt
			src := srcs[a.Outlet]
			res, err := p.Run(ctx, pipeline.Batch{Source: *src, Items: []sources.FeedItem{
				{URL: a.URL, GUID: a.ID, Title: a.Title, ContentHTML: html, PublishedAt: &pub}}})
			if err != nil || len(res.Articles) != 1 {
				t.Fatalf("%s: %d articles, %v", a.ID, len(res.Articles), err)
			}
			if _, err := st.ClaimSource(ctx, ws.ID, src.ID, "storyset", time.Minute); err != nil {
				t.Fatal(err)
			}
			c, err := st.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: src.ID, Owner: "storyset",
				Articles: res.Articles, Stories: res.Stories,
				Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: time.Now().Add(time.Hour)},
				Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: 1}})
			if err != nil || c.New != 1 {
				t.Fatalf("save %s: %+v, %v", a.ID, c, err)
			}
		}
		story := make([]int64, len(arts))
		for i, a := range arts {
			if err := st.DB().Get(&story[i], st.DB().Rebind(`SELECT story_id FROM feed_articles WHERE external_url = ?`), a.URL); err != nil {
				t.Fatalf("story of %s: %v", a.ID, err)
			}
		}
		tp, fp, fn := 0, 0, 0
		var falsePairs, missed []string
		for i := range arts {
			for j := i + 1; j < len(arts); j++ {
				same, pred := arts[i].Event == arts[j].Event, story[i] == story[j]
				switch {
				case same && pred:
					tp++
				case pred:
					fp++
					falsePairs = append(falsePairs, arts[i].ID+" ~ "+arts[j].ID)
				case same:
					fn++
					missed = append(missed, arts[i].ID+" ~ "+arts[j].ID)
				}
			}
		}
		precision, recall := float64(tp)/float64(max(1, tp+fp)), float64(tp)/float64(max(1, tp+fn))
		var n int
		if err := st.DB().Get(&n, st.DB().Rebind(`SELECT COUNT(*) FROM stories WHERE workspace_id = ?`), ws.ID); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d articles in %d stories; pairs tp=%d fp=%d fn=%d: precision %.4f, recall %.4f",
			st.Dialect(), len(arts), n, tp, fp, fn, precision, recall)
		if precision < 0.98 {
			t.Errorf("precision %.4f below 0.98; false pairs: %v", precision, first(falsePairs, 10))
		}
		if recall < 0.90 {
			t.Errorf("recall %.4f below 0.90; missed pairs: %v", recall, first(missed, 10))
		}
	})
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
	}
	return s
}
