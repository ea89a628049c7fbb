package pipeline

import (
	"context"
	"fmt"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/model"
)

// cluster decides the story of each new article with one candidate
// lookup for the whole batch (stories.Prepare): it joins the story of the
// most similar stored article or earlier article of the batch, within the
// story window, when the similarity reaches the threshold; otherwise it
// starts a story. The save hands the decision back to the stories side
// inside its transaction (model.StoryPlacer), which decides again only
// when another poll of the workspace placed articles since this lookup.
func (p *Pipeline) cluster(ctx context.Context, src model.FeedSource, items []item) (model.StoryPlacer, error) {
	if p.opts.Stories == nil || len(items) == 0 {
		return nil, nil
	}
	batch := make([]stories.Item, len(items))
	for i, it := range items {
		batch[i] = stories.Item{Signature: it.sig, At: it.story.ReportedAt}
	}
	placer, err := stories.Prepare(ctx, p.opts.Stories, src.WorkspaceID, batch, p.opts.StoryOptions)
	if err != nil {
		return nil, fmt.Errorf("stories of source %d: %w", src.ID, err)
	}
	return placer, nil
}
