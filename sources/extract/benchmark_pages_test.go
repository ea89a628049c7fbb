package extract

import (
	"bytes"
	"slices"
	"syscall"
	"testing"
	"time"

	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/internal/benchpages"
)

type benchPage struct {
	url  string
	html []byte
}

func loadBenchmarkPages(b *testing.B) []benchPage {
	// The pages are not in the repository: these benchmarks run only
	// when the directory is given.
	pages := benchpages.ForBenchmark(b)
	out := make([]benchPage, 0, len(pages))
	for _, p := range pages {
		out = append(out, benchPage{url: p.URL, html: p.HTML})
	}
	return out
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bestCPU runs fn n times and returns the least process CPU time it took.
func bestCPU(n int, fn func()) time.Duration {
	best := time.Duration(-1)
	for range n {
		start := processCPU()
		fn()
		if d := processCPU() - start; best < 0 || d < best {
			best = d
		}
	}
	return best
}

// BenchmarkBenchmarkPages measures the in-process CPU per page of Extract
// (parse, metadata, extraction, refinement, Markdown, statistics) beside
// go-trafilatura as the evaluator's built-in runs it (parse, then
// ExtractDocument with its readability and dom-distiller fallback), page by
// page, interleaved, best of 3 each, so that load from other processes
// hits both alike. This is the speed target of docs/extraction.md without
// the process start-up that the `feedpoller extract` command pays:
//
//	FEEDPOLLER_EXTRACTION_BENCHMARK=DIR \
//	    go test -run '^$' -bench BenchmarkBenchmarkPages -benchtime 1x ./sources/extract
func BenchmarkBenchmarkPages(b *testing.B) {
	pages := loadBenchmarkPages(b)
	for b.Loop() {
		ours := make([]float64, 0, len(pages))
		theirs := make([]float64, 0, len(pages))
		for _, p := range pages {
			ours = append(ours, ms(bestCPU(3, func() {
				if _, err := Extract(p.html, p.url, Options{}); err != nil {
					b.Logf("extract %s: %v", p.url, err)
				}
			})))
			theirs = append(theirs, ms(bestCPU(3, func() {
				doc, err := html.Parse(bytes.NewReader(p.html))
				if err != nil {
					return
				}
				_, _ = trafilatura.ExtractDocument(doc, trafilatura.Options{EnableFallback: true})
			})))
		}
		b.ReportMetric(medianOf(ours), "cpu-ms/page-median")
		b.ReportMetric(meanOf(ours), "cpu-ms/page-mean")
		b.ReportMetric(medianOf(theirs), "trafilatura-cpu-ms/page-median")
		b.ReportMetric(meanOf(theirs), "trafilatura-cpu-ms/page-mean")
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// BenchmarkTokenCountPages measures exact token counting of whole pages
// (the raw HTML, as Stats.InputTokens counts it) in both encodings, per
// page, beside Extract without counting on the same pages, and checks
// every count against tiktoken-go on the first pass:
//
//	FEEDPOLLER_EXTRACTION_BENCHMARK=DIR \
//	    go test -run '^$' -bench BenchmarkTokenCountPages -benchtime 1x ./sources/extract
func BenchmarkTokenCountPages(b *testing.B) {
	pages := loadBenchmarkPages(b)
	cl, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		b.Fatal(err)
	}
	o2, err := tokens.For(tokens.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range pages {
		s := string(p.html)
		if got, want := cl.Count(s), referenceCount(tokens.CL100kBase, s); got != want {
			b.Errorf("cl100k %s: %d, tiktoken-go %d", p.url, got, want)
		}
		if got, want := o2.Count(s), referenceCount(tokens.O200kBase, s); got != want {
			b.Errorf("o200k %s: %d, tiktoken-go %d", p.url, got, want)
		}
	}
	for b.Loop() {
		var count, extract []float64
		for _, p := range pages {
			s := string(p.html)
			count = append(count, ms(bestCPU(3, func() { cl.Count(s); o2.Count(s) })))
			extract = append(extract, ms(bestCPU(3, func() { _, _ = Extract(p.html, p.url, Options{SkipTokenCounts: true}) })))
		}
		b.ReportMetric(medianOf(count), "count-both-cpu-ms/page-median")
		b.ReportMetric(meanOf(count), "count-both-cpu-ms/page-mean")
		b.ReportMetric(medianOf(extract), "extract-cpu-ms/page-median")
		b.ReportMetric(meanOf(extract), "extract-cpu-ms/page-mean")
	}
}
