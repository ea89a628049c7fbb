package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// BenchmarkDocFreqLogMove times the save that moves a small workspace's
// log into the table: the workspace has logged 12 saves of 20 articles of
// 96 features each, and the save that finds 240 articles counted, with
// the log bound at 240, moves them with its own 20 articles' counts.
// Everything before the move is set up untimed, in a new workspace each
// iteration. The features are drawn from 40 000 terms (news-like: most
// seen once) or from 700 (one feed's articles saved again and again, as
// the pipeline benchmarks do).
//
//	go test -run XXX -bench DocFreqLogMove -benchtime 20x ./store/
func BenchmarkDocFreqLogMove(b *testing.B) {
	for _, vocab := range []int{40000, 700} {
		b.Run(fmt.Sprintf("terms=%d", vocab), func(b *testing.B) { benchmarkDocFreqLogMove(b, vocab) })
	}
}

func benchmarkDocFreqLogMove(b *testing.B, vocab int) {
	testdb.EachStore(b, func(b *testing.B, s *store.Store) {
		s.LogDocFreqUnder(240)
		ctx := context.Background()
		r := rand.New(rand.NewPCG(1, 2))
		period := model.StoryPeriod(time.Now())
		since := time.Now().Add(-30 * 24 * time.Hour)
		poll := func() []model.StoryDocCount {
			counts := []model.StoryDocCount{{Period: period, Term: 0, Docs: 20}}
			seen := map[uint32]int{}
			for range 20 * 96 {
				seen[1<<30|uint32(r.IntN(vocab))]++
			}
			for t, n := range seen {
				counts = append(counts, model.StoryDocCount{Period: period, Term: t, Docs: n})
			}
			return counts
		}
		save := func(ws, src int64) {
			f, err := s.BeginFreqSave(ctx, ws, src)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Read(ctx, []uint32{1 << 30}, since); err != nil {
				b.Fatal(err)
			}
			if err := f.Add(ctx, poll()); err != nil {
				b.Fatal(err)
			}
			if err := f.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			ws, err := s.CreateWorkspace(ctx, fmt.Sprintf("move-%d", i), model.RelevanceProfile{Threshold: 0.5})
			if err != nil {
				b.Fatal(err)
			}
			src := &model.FeedSource{WorkspaceID: ws.ID, URL: fmt.Sprintf("https://m%d.example/feed", i), SourceType: model.SourceRSS,
				IsActive: true, PollingIntervalMinutes: 30}
			if err := s.CreateSource(ctx, src); err != nil {
				b.Fatal(err)
			}
			for range 12 {
				save(ws.ID, src.ID)
			}
			b.StartTimer()
			save(ws.ID, src.ID) // counts 240 articles: moves the log
		}
	})
}
