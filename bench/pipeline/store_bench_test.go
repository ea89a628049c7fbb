package pipeline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// seedArticles stores count articles of ~2 KB Markdown in workspace 1,
// spread over 10 sources (ids 1..10), with URL
// https://farm.test/item/{i} and GUID guid-{i}, in one statement.
func seedArticles(tb testing.TB, d *benchDB, count int) {
	tb.Helper()
	ctx := context.Background()
	ws, err := d.store.CreateWorkspace(ctx, "bench", benchProfile())
	if err != nil || ws.ID != 1 {
		tb.Fatalf("workspace %v: %v", ws, err)
	}
	for i := 1; i <= 10; i++ {
		src := &model.FeedSource{WorkspaceID: 1, URL: fmt.Sprintf("https://farm.test/feed/%d.xml", i),
			SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}
		if err := d.store.CreateSource(ctx, src); err != nil {
			tb.Fatal(err)
		}
	}
	switch d.dialect {
	case store.SQLite:
		d.exec(tb, `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
			INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, external_id, title, content_markdown,
				content_text_hash, created_at)
			SELECT 1, 1 + i % 10, 'https://farm.test/item/' || i, 'guid-' || i, 'Title ' || i,
				substr(hex(randomblob(1000)), 1, 2000), hex(randomblob(16)), '2025-01-01 00:00:00' FROM s /* bench-setup */`, count)
	case store.Postgres:
		d.exec(tb, `INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, external_id, title,
				content_markdown, content_text_hash)
			SELECT 1, 1 + i % 10, 'https://farm.test/item/' || i, 'guid-' || i, 'Title ' || i,
				(SELECT string_agg(md5(i::text || j::text), '') FROM generate_series(1, 63) j), md5(i::text)
			FROM generate_series(1, ?) i /* bench-setup */`, count)
		d.exec(tb, `ANALYZE feed_articles /* bench-setup */`)
	}
}

// BenchmarkKnownArticles is the dedup lookup of one 20-item poll (19
// stored, 1 new) in a workspace holding 1 000 or 50 000 articles. A lookup
// that reads the indexes costs the same at both sizes; one that walks the
// workspace's articles grows with them.
func BenchmarkKnownArticles(b *testing.B) {
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		for _, size := range []int{1_000, 50_000} {
			b.Run(fmt.Sprintf("%s/articles=%d", dialect, size), func(b *testing.B) {
				d := openDB(b, dialect)
				seedArticles(b, d, size)
				// Source 1 holds items 10, 20, …: take 19 of them spread over
				// the table, and one URL that is not stored.
				var urls, guids []string
				for k := 1; k <= 19; k++ {
					i := k * 10 * (size / 1000)
					urls = append(urls, fmt.Sprintf("https://farm.test/item/%d", i))
					guids = append(guids, fmt.Sprintf("guid-%d", i))
				}
				urls = append(urls, "https://farm.test/item/new")
				guids = append(guids, "guid-new")
				ctx := context.Background()
				st0, rt0 := d.statements(b), d.roundTrips()
				b.ResetTimer()
				for b.Loop() {
					k, err := d.store.KnownArticles(ctx, 1, 1, urls, guids)
					if err != nil {
						b.Fatal(err)
					}
					if len(k.ByURL) != 19 || len(k.GUIDs) != 19 {
						b.Fatalf("found %d URLs and %d GUIDs, want 19 of each", len(k.ByURL), len(k.GUIDs))
					}
				}
				b.StopTimer()
				if d.dialect == store.Postgres {
					b.ReportMetric(float64(d.statements(b)-st0)/float64(b.N), "stmts/op")
					b.ReportMetric(float64(d.roundTrips()-rt0)/float64(b.N), "roundtrips/op")
				}
			})
		}
	}
}

// BenchmarkSavePoll is promotion and bookkeeping: store.SavePoll with 20
// new articles (half of them promoted) and with none (the 304 path, whose
// bookkeeping the target allows one round trip). The
// postgres+binary_parameters=no case is lib/pq's default, for comparison.
func BenchmarkSavePoll(b *testing.B) {
	for _, dialect := range []string{store.SQLite, store.Postgres, pgTextParameters} {
		for _, articles := range []int{0, 20} {
			b.Run(fmt.Sprintf("%s/articles=%d", dialect, articles), func(b *testing.B) {
				d := openDB(b, dialect)
				ctx := context.Background()
				ws, err := d.store.CreateWorkspace(ctx, "bench", benchProfile())
				if err != nil {
					b.Fatal(err)
				}
				src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://farm.test/feed/0.xml",
					SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30}
				if err := d.store.CreateSource(ctx, src); err != nil {
					b.Fatal(err)
				}
				body := string(farmFeed(b, 0, 1))[:2000]
				etag := `"v1"`
				st0, rt0 := d.statements(b), d.roundTrips()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					// A poll is saved only while its lease holds: lease the
					// source as a claim would, outside the timing.
					b.StopTimer()
					d.exec(b, `UPDATE feed_sources SET lease_owner = 'bench', lease_until = ? WHERE id = ? /* bench-setup */`,
						time.Now().Add(time.Hour).UTC(), src.ID)
					b.StartTimer()
					now := time.Now().UTC()
					p := model.PollSave{WorkspaceID: ws.ID, SourceID: src.ID, Owner: "bench",
						Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: now.Add(30 * time.Minute), ETag: &etag},
						Run:    model.PollRun{StartedAt: now, FinishedAt: &now, Outcome: model.StatusOK, HTTPStatus: 200}}
					if articles == 0 {
						p.Source.Status, p.Run.Outcome, p.Run.HTTPStatus = model.StatusNotModified, model.StatusNotModified, 304
					}
					for k := 0; k < articles; k++ {
						u := fmt.Sprintf("https://farm.test/item/%d/%d", i, k)
						g := fmt.Sprintf("guid-%d-%d", i, k)
						p.Articles = append(p.Articles, model.NewArticle{Promote: k%2 == 0, Article: model.FeedArticle{
							ExternalURL: u, ExternalID: &g, Title: "Title " + u, ContentMarkdown: body, WordCount: 300,
							ContentTextHash: fmt.Sprintf("%032x", i*100+k), RelevanceScore: 0.5, ExtractionMethod: "feed_content"}})
					}
					c, err := d.store.SavePoll(ctx, p)
					if err != nil {
						b.Fatal(err)
					}
					if c.New != articles || c.Promoted != articles/2 {
						b.Fatalf("saved %d new, %d promoted; want %d, %d", c.New, c.Promoted, articles, articles/2)
					}
				}
				b.StopTimer()
				var lease string
				if err := d.direct.QueryRow(`SELECT lease_owner FROM feed_sources /* bench-setup */`).Scan(&lease); err != nil || lease != "" {
					b.Fatalf("source row not updated: lease %q, %v", lease, err)
				}
				if d.dialect == store.Postgres {
					b.ReportMetric(float64(d.statements(b)-st0)/float64(b.N), "stmts/op")
					b.ReportMetric(float64(d.roundTrips()-rt0)/float64(b.N), "roundtrips/op")
				}
			})
		}
	}
}
