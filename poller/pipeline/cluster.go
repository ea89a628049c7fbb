package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// StoryIndex finds, in one lookup, the stored articles of a workspace
// that share a band key with a batch's articles and were reported since
// a time, with the story generation the lookup saw
// (store.Store.StoryCandidates).
type StoryIndex interface {
	StoryCandidates(ctx context.Context, workspaceID int64, keys []int64, since time.Time) (*store.StoryLookup, error)
}

// cluster decides the story of each new article with one candidate
// lookup for the whole batch: it joins the story of the most similar
// stored article or earlier article of the batch, within the story
// window, when the similarity reaches the threshold; otherwise it starts
// a story (stories.Decide). The save records the decision, deciding
// again in its transaction only when another poll of the workspace
// placed articles since this lookup (store.StoryPlan).
func (p *Pipeline) cluster(ctx context.Context, src model.FeedSource, items []item) (*store.StoryPlan, error) {
	if p.opts.Stories == nil || len(items) == 0 {
		return nil, nil
	}
	var keys []int64
	since := items[0].story.ReportedAt
	batch := make([]stories.Item, len(items))
	for i, it := range items {
		batch[i] = stories.Item{Signature: it.story.Signature, At: it.story.ReportedAt}
		keys = append(keys, it.story.Signature.Keys()...)
		if it.story.ReportedAt.Before(since) {
			since = it.story.ReportedAt
		}
	}
	window := p.opts.StoryOptions.Window
	if window == 0 {
		window = stories.DefaultWindow
	}
	found, err := p.opts.Stories.StoryCandidates(ctx, src.WorkspaceID, keys, since.Add(-window))
	if err != nil {
		return nil, fmt.Errorf("story candidates of source %d: %w", src.ID, err)
	}
	assign, err := stories.DecideReported(batch, found.Candidates, p.opts.StoryOptions)
	if err != nil {
		return nil, fmt.Errorf("stories of source %d: %w", src.ID, err)
	}
	for i := range items {
		items[i].story.Assignment = assign[i]
	}
	return &store.StoryPlan{Generation: found.Generation, Options: p.opts.StoryOptions}, nil
}
