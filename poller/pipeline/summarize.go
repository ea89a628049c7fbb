package pipeline

import (
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/model"
)

// summarize works out, from each article's own text, what stories and
// digests read: an extractive summary of a few of its sentences (stored
// beside the feed's description, which is often a teaser or empty), its
// story profile over title and body, and when it counts as reported
// (its publication date, unless missing or later than now).
func summarize(items []item, stems *stories.Stems, now time.Time) {
	for i := range items {
		a := &items[i].art
		a.ExtractiveSummary = summary.Summarize(a.ContentMarkdown, summary.Options{})
		at := stories.ReportedAt(a.PublishedAt, now).UTC()
		a.ReportedAt = &at
		items[i].profile = stems.Profile(a.Title, a.ContentMarkdown)
		items[i].story = &model.StoryFacts{ReportedAt: at}
	}
}
