package extract_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// farmBodies returns the HTML bodies of one default farm feed: 20 items of
// ~2 KB, what the pipeline converts for a changed feed.
func farmBodies(b *testing.B) []string {
	b.Helper()
	f := feedfarm.New(feedfarm.Options{Feeds: 1, Format: feedfarm.FormatRSS, Seed: 1})
	rec := httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://farm.test/feed/0.xml", nil))
	feed, err := gofeed.NewParser().Parse(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, it := range feed.Items {
		out = append(out, it.Content)
	}
	if len(out) != 20 || out[0] == "" {
		b.Fatalf("farm feed has %d items", len(out))
	}
	return out
}

// BenchmarkStageMarkdown is the pipeline's HTML→Markdown stage for one
// feed item as the poller runs it (FromFragment: FragmentToMarkdown, then
// the word count, the exact token counts in two encodings and the quality
// score it records), next to its parts and to the converter's defaults
// alone (the floor). Per item of ~2 KB.
func BenchmarkStageMarkdown(b *testing.B) {
	bodies := farmBodies(b)
	const base = "http://farm.test/item/0/1"
	run := func(name string, f func(html string) int) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			// CPU time as well as wall time: on a machine shared with
			// other work, the wall time measures the queue.
			start, n := processCPU(), 0
			for i := 0; b.Loop(); i++ {
				if f(bodies[i%len(bodies)]) == 0 {
					b.Fatal("nothing produced")
				}
				n++
			}
			b.ReportMetric(float64(processCPU()-start)/float64(n), "cpu-ns/op")
		})
	}
	run("floor-converter-defaults", func(html string) int {
		md, err := htmltomarkdown.ConvertString(html)
		if err != nil {
			b.Fatal(err)
		}
		return len(md)
	})
	run("FragmentToMarkdown", func(html string) int {
		md, err := extract.FragmentToMarkdown(html, base)
		if err != nil {
			b.Fatal(err)
		}
		return len(md)
	})
	md, _ := extract.FragmentToMarkdown(bodies[0], base)
	run("CountWords", func(string) int { return extract.CountWords(md) })
	cl, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		b.Fatal(err)
	}
	o2, err := tokens.For(tokens.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	// Exact token counts, both encodings, of the item's HTML and of its
	// Markdown: what FromFragment adds to an article's statistics.
	run("CountTokens-html", func(html string) int { return cl.Count(html) + o2.Count(html) })
	run("CountTokens-markdown", func(string) int { return cl.Count(md) + o2.Count(md) })
	// The poller's first cascade tier: conversion plus the statistics and
	// quality score it stores with the article.
	run("stage-as-poller-runs-it", func(html string) int {
		doc, err := extract.FromFragment(html, base)
		if err != nil {
			b.Fatal(err)
		}
		return doc.Stats.WordCount
	})
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMarkdownTogether converts the farm feed's items on every
// core at once, as the poller's workers do, and reports the process's
// CPU per item: run with -cpu 1,2, the ratio of the two is what
// converting side by side costs over converting alone.
func BenchmarkMarkdownTogether(b *testing.B) {
	bodies := farmBodies(b)
	const base = "http://farm.test/item/0/1"
	b.ReportAllocs()
	start := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			md, err := extract.FragmentToMarkdown(bodies[i%len(bodies)], base)
			if err != nil || md == "" {
				b.Errorf("item %d: %q, %v", i%len(bodies), md, err)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
