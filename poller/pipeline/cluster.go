package pipeline

import (
	"fmt"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/model"
)

// cluster hands the save the placer of the batch's stories: each new
// article's profile and reporting time, grouped inside the save's
// transaction (stories.Placer) against the workspace's term index and
// stories as they are at that moment.
func (p *Pipeline) cluster(src model.FeedSource, items []item) (model.StoryPlacer, error) {
	if !p.opts.PlaceStories || len(items) == 0 {
		return nil, nil
	}
	batch := make([]stories.Arrival, len(items))
	for i, it := range items {
		batch[i] = stories.Arrival{Profile: it.profile, At: it.story.ReportedAt}
	}
	placer, err := stories.NewPlacer(batch, p.opts.StoryOptions)
	if err != nil {
		return nil, fmt.Errorf("stories of source %d: %w", src.ID, err)
	}
	return placer.WithDocFreqWindow(p.opts.StoryDocFreqWindow), nil
}
