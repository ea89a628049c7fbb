package digest

import (
	"fmt"
	"github.com/feedpoller/feedpoller/model"
	"testing"
	"time"
)

// bigInput is a digest input of n articles in stories of four, built
// from the labelled story set's articles with their summaries.
func bigInput(b *testing.B, n int) Input {
	base := storySetInput(b)
	var arts []model.DigestArticle
	for _, s := range base.Stories {
		arts = append(arts, s.Articles...)
	}
	in := base
	in.Stories = nil
	for i := 0; i < n; i += 4 {
		s := Story{ID: int64(i/4 + 1)}
		for j := i; j < min(n, i+4); j++ {
			a := arts[j%len(arts)]
			a.ID = int64(j + 1)
			a.URL = fmt.Sprintf("%s?copy=%d", a.URL, j)
			pub := a.PublishedAt.Add(time.Duration(j) * time.Minute)
			a.PublishedAt = &pub
			s.Articles = append(s.Articles, a)
		}
		in.Stories = append(in.Stories, s)
	}
	return in
}

// BenchmarkDigest measures a digest over 10 000 articles (2 500 stories):
// ranking and building, then each format. The database part (loading the
// window's articles) is not included.
//
//	go test -run XXX -bench Digest -benchtime 20x ./digest/
func BenchmarkDigest(b *testing.B) {
	in := bigInput(b, 10000)
	tc := cl100k(b)
	d := Build(in, Options{})
	b.Run("build/items=10000", func(b *testing.B) {
		for b.Loop() {
			Build(in, Options{})
		}
	})
	b.Run("markdown/items=10000", func(b *testing.B) {
		for b.Loop() {
			Markdown(d)
		}
	})
	b.Run("json/items=10000", func(b *testing.B) {
		for b.Loop() {
			if _, err := JSON(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, budget := range []int{500, 5000} {
		b.Run(fmt.Sprintf("compact/items=10000/max_tokens=%d", budget), func(b *testing.B) {
			for b.Loop() {
				if _, err := Compact(d, budget, tc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("build+markdown/items=10000", func(b *testing.B) {
		for b.Loop() {
			Markdown(Build(in, Options{}))
		}
	})
}
