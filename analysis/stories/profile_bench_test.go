package stories

import "testing"

// BenchmarkProfileStorySet: the story set's articles (news of a few
// hundred words, in lines and paragraphs) through stems the process
// already remembers, as the pipeline computes their profiles.
func BenchmarkProfileStorySet(b *testing.B) {
	arts := loadStorySet(b)
	stems := NewStems(50000)
	size := 0
	for _, a := range arts {
		stems.Profile(a.Title, a.Markdown)
		size += len(a.Markdown)
	}
	b.SetBytes(int64(size / len(arts)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a := arts[i%len(arts)]
		stems.Profile(a.Title, a.Markdown)
		i++
	}
}
