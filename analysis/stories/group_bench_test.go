package stories

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkGroupPlace measures placing one new article (the term lookup
// of its index terms and the decision over the stories it finds) against
// an archive of 1 000, 10 000 and 100 000 articles of one workspace:
// "window" with the whole archive inside the story window (everything
// could match), "spread" with 1 000 articles a day, so the 7-day window
// holds 7 000. postings/op is how many index entries the lookup
// returned, stories/op how many centroids were compared. Computing the
// profile is left out (it does not depend on the archive; see
// BenchmarkProfile).
//
//	go test -run XXX -bench GroupPlace -benchtime 2000x ./stories/
func BenchmarkGroupPlace(b *testing.B) {
	end := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, layout := range []struct {
		name  string
		every time.Duration
	}{{"window", time.Second}, {"spread", 24 * time.Hour / 1000}} {
		gen := newSynthArchive(b, 1)
		held := 0
		archive := make([]Arrival, 0, 100000)
		for _, n := range []int{1000, 10000, 100000} {
			for held < n {
				title, body := gen.Article()
				archive = append(archive, Arrival{Profile: NewProfile(title, body)})
				held++
			}
			// Oldest first, the newest reported just before end.
			for i := range archive {
				archive[i].At = end.Add(-time.Duration(len(archive)-i) * layout.every)
			}
			mem, err := NewMemGroups(GroupOptions{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for i := 0; i < len(archive); i += 20 {
				if _, _, _, err := mem.Place(ctx, 1, archive[i:min(i+20, len(archive))]); err != nil {
					b.Fatal(err)
				}
			}
			queries := make([]Arrival, 64)
			qgen := newSynthArchive(b, 99)
			for i := range queries {
				title, body := qgen.Article()
				queries[i] = Arrival{Profile: NewProfile(title, body), At: end}
			}
			runtime.GC()
			b.Run(fmt.Sprintf("%s/archive=%d", layout.name, n), func(b *testing.B) {
				var postings, compared int
				i := 0
				for b.Loop() {
					q := queries[i%len(queries)]
					i++
					_, found, err := mem.Decide(ctx, 1, []Arrival{q})
					if err != nil {
						b.Fatal(err)
					}
					postings += len(found.Postings)
					compared += len(found.Stories)
				}
				b.ReportMetric(float64(postings)/float64(b.N), "postings/op")
				b.ReportMetric(float64(compared)/float64(b.N), "stories/op")
			})
		}
	}
}

// BenchmarkProfile measures computing a profile against the size of the
// article (MB/s is its throughput).
func BenchmarkProfile(b *testing.B) {
	for _, words := range []int{100, 500, 2000, 8000} {
		text := synthText(b, words)
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				NewProfile("A headline of eight words for the bench", text)
			}
		})
	}
}
