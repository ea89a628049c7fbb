package relevance

import (
	"github.com/feedpoller/feedpoller/model"
	"strings"
	"testing"
)

// profileForFuzz turns arbitrary text into a profile so that fuzzing also
// exercises odd keywords and exclusions.
func profileForFuzz(s string) model.RelevanceProfile {
	words := strings.Fields(s)
	p := model.RelevanceProfile{Threshold: 0.2}
	for i, w := range words {
		if i%3 == 2 {
			p.Exclusions = append(p.Exclusions, w)
			continue
		}
		p.Keywords = append(p.Keywords, model.Keyword{Term: w, Weight: float64(i%5 + 1)})
	}
	return p
}

func benchProfile() model.RelevanceProfile {
	terms := []string{
		"kubernetes", "scheduler", "large language model", "open source", "security",
		"vulnerability", "database", "postgres", "machine learning", "inference",
		"compiler", "rust", "go", "cloud", "regulation", "privacy", "data center",
		"GPU", "benchmark", "supply chain",
	}
	p := model.RelevanceProfile{Exclusions: []string{"sponsored", "press release", "giveaway"}, Threshold: 0.3}
	for i, t := range terms {
		p.Keywords = append(p.Keywords, model.Keyword{Term: t, Weight: float64(i%4 + 1)})
	}
	return p
}

// benchBody is about 2 KB of article-like prose with a few profile hits.
func benchBody() string {
	para := "The team behind the project announced on Tuesday that its new release improves how " +
		"workloads are scheduled across clusters. Engineers said the changes to the scheduler reduce " +
		"tail latency for inference services running on shared GPUs, while keeping costs predictable. " +
		"Several operators who tested the preview reported fewer evictions and steadier throughput. "
	var b strings.Builder
	for b.Len() < 2048 {
		b.WriteString(para)
	}
	return b.String()[:2048]
}

func BenchmarkScore(b *testing.B) {
	s := NewScorer(benchProfile())
	title := "Kubernetes scheduler update cuts latency for GPU inference"
	body := benchBody()
	b.SetBytes(int64(len(title) + len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Score(title, body); r.Score == 0 {
			b.Fatal("expected matches")
		}
	}
}

func BenchmarkNewScorer(b *testing.B) {
	p := benchProfile()
	b.ReportAllocs()
	for b.Loop() {
		NewScorer(p)
	}
}
