package pipeline

import (
	"github.com/feedpoller/feedpoller/analysis/relevance"
	"github.com/feedpoller/feedpoller/model"
)

// promote decides which articles become content items: those the
// workspace's profile finds relevant (not excluded, at or above its
// threshold). The content items are inserted by the same save as the
// articles, which skips one whose content hash the workspace already
// promoted (the cross-source exact-duplicate guard) and counts it as a
// duplicate.
func promote(sc *relevance.Scorer, items []item) {
	for i := range items {
		items[i].promote = sc.Relevant(items[i].rel)
	}
}

// toStore is the batch's articles as the store saves them.
func toStore(items []item) []model.NewArticle {
	out := make([]model.NewArticle, len(items))
	for i, it := range items {
		out[i] = model.NewArticle{Article: it.art, Promote: it.promote, Story: it.story}
	}
	return out
}
