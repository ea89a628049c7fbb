package pipeline

import (
	"bytes"
	"testing"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// BenchmarkFarmText: the text stages the poller runs on each new article
// after its conversion (the summary, the story profile through remembered
// stems), on the Markdown of one farm feed's 20 items, the text
// BenchmarkPoll's polls carry: shorter paragraphs, headings and lists,
// unlike the story set the stages' package benchmarks read.
//
//	go test -run XXX -bench FarmText ./bench/pipeline/
func BenchmarkFarmText(b *testing.B) {
	feed, err := gofeed.NewParser().Parse(bytes.NewReader(farmFeed(b, feedfarm.FormatRSS, 20)))
	if err != nil {
		b.Fatal(err)
	}
	var titles, mds []string
	for _, it := range feed.Items {
		md, err := extract.FragmentToMarkdown(it.Content, it.Link)
		if err != nil {
			b.Fatal(err)
		}
		titles, mds = append(titles, it.Title), append(mds, md)
	}
	b.Run("summary", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if summary.Summarize(mds[i%len(mds)], summary.Options{}) == "" {
				b.Fatal("empty summary")
			}
		}
	})
	stems := stories.NewStems(50000)
	b.Run("profile", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if p := stems.Profile(titles[i%len(mds)], mds[i%len(mds)]); p.Empty() {
				b.Fatal("empty profile")
			}
		}
	})
}
