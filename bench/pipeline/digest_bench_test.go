package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

// seedDigest stores, in workspace 1 of d, items content items over the
// week before end: items/4 stories of four articles each from four of
// eight sources, every article promoted, with the labelled story set's
// titles and extractive summaries. Rows are written with multi-row
// INSERTs outside the counted path, as the daemon's saves would leave
// them.
func seedDigest(b *testing.B, d *benchDB, items int, end time.Time) {
	b.Helper()
	ctx := context.Background()
	set, err := storyfeeds.Load("../../analysis/stories/testdata/storyset.json")
	if err != nil {
		b.Fatal(err)
	}
	summaries := make([]string, len(set))
	for i, a := range set {
		summaries[i] = summary.Summarize(a.Markdown, summary.Options{})
	}
	ws, err := d.store.CreateWorkspace(ctx, "digest", model.RelevanceProfile{})
	if err != nil || ws.ID != 1 {
		b.Fatalf("workspace %v: %v", ws, err)
	}
	for i := 1; i <= 8; i++ {
		src := &model.FeedSource{WorkspaceID: 1, URL: fmt.Sprintf("https://outlet%d.example/feed.xml", i),
			SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}
		src.ReliabilityTier = 1 + i%5
		if err := d.store.CreateSource(ctx, src); err != nil {
			b.Fatal(err)
		}
	}
	stories := items / 4
	step := 7 * 24 * time.Hour / time.Duration(stories+1)
	start := end.Add(-7 * 24 * time.Hour)
	insert := func(head string, cols, rows int, args []any) {
		q := head + strings.TrimSuffix(strings.Repeat("("+strings.TrimSuffix(strings.Repeat("?, ", cols), ", ")+"), ", rows), ", ")
		d.exec(b, q+" /* bench-setup */", args...)
	}
	const chunk = 250
	for s0 := 0; s0 < stories; s0 += chunk {
		n := min(chunk, stories-s0)
		var sArgs, aArgs, cArgs []any
		for s := s0; s < s0+n; s++ {
			at := start.Add(step * time.Duration(s+1))
			sArgs = append(sArgs, s+1, 1, at, at.Add(3*time.Hour), 4)
			for k := range 4 {
				id := s*4 + k + 1
				a := set[(s*4+k)%len(set)]
				rep := at.Add(time.Duration(k) * time.Hour)
				url := fmt.Sprintf("https://outlet%d.example/%d/%s", 1+(s+k)%8, id, a.ID)
				aArgs = append(aArgs, id, 1, 1+(s+k)%8, url, a.Title, summaries[(s*4+k)%len(set)], 0.3+float64(id%7)/10,
					fmt.Sprintf("h%d", id), rep, rep.Add(5*time.Minute), rep, s+1)
				cArgs = append(cArgs, id, 1, id, url, a.Title, fmt.Sprintf("h%d", id), 0.5, rep.Add(5*time.Minute), s+1)
			}
		}
		insert(`INSERT INTO stories (id, workspace_id, first_reported_at, last_reported_at, article_count) VALUES `, 5, n, sArgs)
		insert(`INSERT INTO feed_articles (id, workspace_id, feed_source_id, external_url, title, extractive_summary, relevance_score,
			content_text_hash, published_at, created_at, reported_at, story_id) VALUES `, 12, n*4, aArgs)
		insert(`INSERT INTO content_items (id, workspace_id, feed_article_id, url, title, content_text_hash, relevance_score,
			promoted_at, story_id) VALUES `, 9, n*4, cArgs)
	}
	if d.dialect == store.Postgres {
		d.exec(b, `ANALYZE /* bench-setup */`)
	}
}

// BenchmarkDigest is a whole digest through the source service over a
// real database holding 10 000 content items in the window (2 500
// stories of four articles, eight sources): the store's two queries,
// building (rank, confidence, provenance, citations, gaps) and rendering
// each format. The target is ≤ 1 s for the markdown digest on SQLite.
//
//	go test -run XXX -bench 'Digest$' -benchtime 5x ./bench/pipeline/
func BenchmarkDigest(b *testing.B) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		b.Run(dialect, func(b *testing.B) {
			d := openDB(b, dialect)
			end := time.Now().UTC().Truncate(time.Hour)
			seedDigest(b, d, 10000, end)
			o := service.DefaultOptions()
			o.Store, o.Digests = d.store, d.store
			svc, err := service.New(o)
			if err != nil {
				b.Fatal(err)
			}
			for _, format := range []string{"markdown", "json", "compact"} {
				b.Run(fmt.Sprintf("items=10000/format=%s", format), func(b *testing.B) {
					req := service.DigestRequest{Since: "7d", Until: end.Add(time.Minute).Format(time.RFC3339), Format: format}
					for b.Loop() {
						out, err := svc.Digest(context.Background(), 1, req)
						if err != nil {
							b.Fatal(err)
						}
						if format != "compact" && len(out.Built.Stories) != 2500 {
							b.Fatalf("%d stories, want 2500", len(out.Built.Stories))
						}
					}
				})
			}
		})
	}
}
