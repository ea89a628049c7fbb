package pipeline

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// newSynthNews writes articles from the labelled story set's vocabulary,
// as the stories package's own benchmark does.
func newSynthNews(tb testing.TB, seed uint64) *storyfeeds.Synth {
	set, err := storyfeeds.Load("../../analysis/stories/testdata/storyset.json")
	if err != nil {
		tb.Fatal(err)
	}
	return storyfeeds.NewSynth(set, seed)
}

// growArchive stores articles from..n-1 of workspace 1 through SavePoll
// (signatures, band keys, a story each), article i reported i×every
// before end, a thousand per poll.
func growArchive(b *testing.B, d *benchDB, gen *storyfeeds.Synth, from, n int, end time.Time, every time.Duration) {
	b.Helper()
	ctx := context.Background()
	for start := from; start < n; start += 1000 {
		d.exec(b, `UPDATE feed_sources SET lease_owner = 'bench', lease_until = ? WHERE id = 1 /* bench-setup */`,
			time.Now().Add(time.Hour).UTC())
		now := time.Now().UTC()
		p := model.PollSave{WorkspaceID: 1, SourceID: 1, Owner: "bench",
			Source: model.SourceUpdate{Status: model.StatusOK, NextPollAt: now.Add(time.Hour)},
			Run:    model.PollRun{StartedAt: now, Outcome: model.StatusOK}}
		for i := start; i < min(start+1000, n); i++ {
			title, body := gen.Article()
			at := end.Add(-time.Duration(i+1) * every)
			p.Articles = append(p.Articles, model.NewArticle{
				Article: model.FeedArticle{ExternalURL: fmt.Sprintf("https://news.test/%d", i), Title: title,
					ContentTextHash: fmt.Sprintf("%032x", i), PublishedAt: &at},
				Story: storyFacts(b, stories.Sign(title, body), at)})
		}
		if _, err := d.store.SavePoll(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	if d.dialect == store.Postgres {
		d.exec(b, `ANALYZE /* bench-setup */`)
	}
}

// BenchmarkStoryPlacement is the story work a poll does per new article
// against the real database: one candidate lookup of the article's band
// keys (store.StoryCandidates, the statement the pipeline runs) and the
// decision over what it returns, in a workspace of 1 000, 10 000 and
// 100 000 articles, grown in one run, 1 000 a day (the 7-day window
// holds at most 7 000 of them). Signing is left out: it does not depend
// on the archive (stories' BenchmarkSign). candidates/op is how many
// stored signatures the lookup returned; stmts/op counts PostgreSQL's
// statements.
//
//	go test -run XXX -bench StoryPlacement -benchtime 200x ./bench/pipeline/
func BenchmarkStoryPlacement(b *testing.B) {
	end := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	every := 24 * time.Hour / 1000
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		d := openDB(b, dialect)
		if _, err := d.store.CreateWorkspace(context.Background(), "stories", model.RelevanceProfile{}); err != nil {
			b.Fatal(err)
		}
		if err := d.store.CreateSource(context.Background(), &model.FeedSource{WorkspaceID: 1, URL: "https://news.test/feed",
			SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}); err != nil {
			b.Fatal(err)
		}
		gen := newSynthNews(b, 1)
		qgen := newSynthNews(b, 99)
		queries := make([]stories.Item, 64)
		for i := range queries {
			title, body := qgen.Article()
			queries[i] = stories.Item{Signature: stories.Sign(title, body), At: end}
		}
		held := 0
		for _, n := range []int{1000, 10000, 100000} {
			growArchive(b, d, gen, held, n, end, every)
			held = n
			runtime.GC()
			b.Run(fmt.Sprintf("%s/articles=%d", dialect, n), func(b *testing.B) {
				ctx := context.Background()
				cands, i := 0, 0
				st0 := d.statements(b)
				for b.Loop() {
					q := queries[i%len(queries)]
					i++
					if _, err := stories.Prepare(ctx, countingView{d.store, &cands}, 1, []stories.Item{q}, stories.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cands)/float64(b.N), "candidates/op")
				if d.dialect == store.Postgres {
					b.ReportMetric(float64(d.statements(b)-st0)/float64(b.N), "stmts/op")
				}
			})
		}
	}
}

// storyFacts is what the pipeline stores of an article's story.
func storyFacts(b *testing.B, sig stories.Signature, at time.Time) *model.StoryFacts {
	f, err := stories.Facts(sig, at)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// countingView counts the candidates the lookups return.
type countingView struct {
	view model.StoryView
	n    *int
}

func (c countingView) StoryCandidates(ctx context.Context, q model.StoryQuery) (*model.StoryLookup, error) {
	found, err := c.view.StoryCandidates(ctx, q)
	if found != nil {
		*c.n += len(found.Candidates)
	}
	return found, err
}
