package tokens_test

import (
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/internal/benchpages"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// article is what the pipeline counts for every new item: its raw HTML
// and the Markdown extracted from it.
type article struct{ html, markdown string }

func extracted(b *testing.B, html []byte, url string) article {
	doc, err := extract.Extract(html, url, extract.Options{SkipTokenCounts: true})
	if err != nil {
		b.Fatalf("extract %s: %v", url, err)
	}
	return article{html: string(html), markdown: doc.Markdown}
}

// farmArticles renders the article pages of the synthetic feed farm the
// pipeline benchmarks poll, and extracts their Markdown.
func farmArticles(b *testing.B, feeds int, text feedfarm.Text) []article {
	f := feedfarm.New(feedfarm.Options{Feeds: feeds, Seed: 1, Text: text})
	h := f.Handler()
	var out []article
	for n := range feeds {
		for k := range feedfarm.DefaultItemsPerFeed {
			path := "/item/" + strconv.Itoa(n) + "/" + strconv.Itoa(k)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			if rec.Code != 200 {
				b.Fatalf("farm %s: status %d", path, rec.Code)
			}
			out = append(out, extracted(b, rec.Body.Bytes(), "http://farm.test"+path))
		}
	}
	return out
}

func benchmarkPageArticles(b *testing.B) []article {
	// The pages are not in the repository: this case runs only when the
	// directory is given.
	pages := benchpages.ForBenchmark(b)
	out := make([]article, 0, len(pages))
	for _, p := range pages {
		out = append(out, extracted(b, p.HTML, p.URL))
	}
	return out
}

// articleSets are the articles the benchmarks count: the farm's 20-item
// feeds, as the pipeline benchmarks poll them, in its uniform text (some
// 190 words) and its news-like text (English words by their usual
// frequency), and real pages of the extraction benchmark.
var articleSets = []struct {
	name string
	load func(*testing.B) []article
}{
	{"farm", func(b *testing.B) []article { return farmArticles(b, 50, feedfarm.TextUniform) }},
	{"news", func(b *testing.B) []article { return farmArticles(b, 50, feedfarm.TextNews) }},
	{"pages", benchmarkPageArticles},
}

// countArticle counts an article as the pipeline does: raw HTML and
// Markdown, in both encodings.
func countArticle(cl, o2 *tokens.Counter, a article) {
	cl.Count(a.html)
	o2.Count(a.html)
	cl.Count(a.markdown)
	o2.Count(a.markdown)
}

// processCPU is the CPU time of the whole process so far: the other
// processes of a shared machine slow the wall clock, not this.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCountArticles counts articles as the pipeline does for each new
// item (raw HTML and Markdown, cl100k_base and o200k_base) and reports the
// time and the process CPU time per article. Every iteration starts from new counters, counts one
// half of the articles untimed (a daemon has counted other articles before)
// and times the other half, each article once: nothing timed has been
// counted before, so whatever a counter remembers between calls is paid
// for, not replayed.
//
//	FEEDPOLLER_EXTRACTION_BENCHMARK=DIR \
//	    go test -run '^$' -bench BenchmarkCountArticles ./analysis/tokens
func BenchmarkCountArticles(b *testing.B) {
	for _, set := range articleSets {
		b.Run(set.name, func(b *testing.B) {
			all := set.load(b)
			var warm, timed []article
			for i, a := range all {
				if i%2 == 0 {
					warm = append(warm, a)
				} else {
					timed = append(timed, a)
				}
			}
			bytes := 0
			for _, a := range timed {
				bytes += len(a.html) + len(a.markdown)
			}
			var cpu time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				cl, err := tokens.NewCounter(tokens.CL100kBase)
				if err != nil {
					b.Fatal(err)
				}
				o2, err := tokens.NewCounter(tokens.O200kBase)
				if err != nil {
					b.Fatal(err)
				}
				for _, a := range warm {
					countArticle(cl, o2, a)
				}
				b.StartTimer()
				start := processCPU()
				for _, a := range timed {
					countArticle(cl, o2, a)
				}
				cpu += processCPU() - start
			}
			perArticle := float64(b.Elapsed().Nanoseconds()) / float64(b.N*len(timed))
			b.ReportMetric(perArticle/1e3, "µs/article")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(timed))/1e3, "cpu-µs/article")
			b.ReportMetric(float64(bytes)/float64(len(timed)), "bytes/article")
		})
	}
}

// BenchmarkCountArticlesParallel counts the articles from every processor
// at once through the process-wide counters, as concurrent polls do: run
// with -cpu 1,2 to see what sharing the counters costs. One op is one
// article.
func BenchmarkCountArticlesParallel(b *testing.B) {
	for _, set := range articleSets {
		b.Run(set.name, func(b *testing.B) {
			all := set.load(b)
			cl, err := tokens.For(tokens.CL100kBase)
			if err != nil {
				b.Fatal(err)
			}
			o2, err := tokens.For(tokens.O200kBase)
			if err != nil {
				b.Fatal(err)
			}
			var next atomic.Int64
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					countArticle(cl, o2, all[int(next.Add(1))%len(all)])
				}
			})
		})
	}
}
