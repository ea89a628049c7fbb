package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/lexemes"
)

// TestSearchVectorBinaryIsTheLiteral: on PostgreSQL a save sends each
// article's search vector in the server's binary format when the
// connections send parameters in binary (the default), as a literal when
// the URL turns that off, and the stored vector is the same either way:
// the literal's lexemes, positions and weights, for text whose lexemes
// come out of order, words with accents and other scripts, a word past
// the positions a lexeme keeps, words past the last position, and a body
// weighted as a summary.
func TestSearchVectorBinaryIsTheLiteral(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("zebra apple ", 300) + strings.Repeat("filler ", lexemes.MaxPosition) + "mango tail words"
	arts := []model.FeedArticle{
		{ExternalURL: "https://v.example/1", Title: "Zürich naïve 東京 café", Summary: "Zebras and apples, mangoes",
			ContentMarkdown: long, ContentTextHash: "v1"},
		{ExternalURL: "https://v.example/2", Title: "A summary only", Summary: "The summary is the body",
			ContentMarkdown: "The summary is the body", ExtractionMethod: model.ExtractionSummary, ContentTextHash: "v2"},
		{ExternalURL: "https://v.example/3", ContentTextHash: "v3"},
	}
	stored := map[bool][]string{}
	for _, binary := range []bool{true, false} {
		u := testdb.URL(t, store.Postgres)
		if !binary {
			u += map[bool]string{true: "&", false: "?"}[strings.Contains(u, "?")] + "binary_parameters=no"
		}
		s := openURL(t, u, store.Options{})
		if s.BinarySearchVectors() != binary {
			t.Fatalf("binary vectors %v, want %v", s.BinarySearchVectors(), binary)
		}
		ws, srcs := seed(t, s, "https://v.example/feed")
		news := make([]model.NewArticle, len(arts))
		for i, a := range arts {
			news[i] = model.NewArticle{Article: a}
		}
		ids := saveThroughPoll(t, s, ws, srcs[0], news)
		for _, a := range arts {
			w := lexemes.C
			summary := a.Summary
			if a.ExtractionMethod == model.ExtractionSummary {
				w, summary = lexemes.B, ""
			}
			literal := lexemes.Article(a.Title, summary, a.ContentMarkdown, w)
			var row struct {
				Same   bool   `db:"same"`
				Vector string `db:"v"`
			}
			if err := s.DB().GetContext(ctx, &row, `SELECT search_vector = $1::tsvector AS same, search_vector::text AS v
				FROM feed_articles WHERE id = $2`, literal, ids[a.ExternalURL]); err != nil {
				t.Fatal(err)
			}
			if !row.Same {
				t.Errorf("binary %v, %s: stored %.200s…\nwant %.200s…", binary, a.ExternalURL, row.Vector, literal)
			}
			stored[binary] = append(stored[binary], row.Vector)
		}
		if hits := search(t, s, ws.ID, `tail`, model.SearchFilter{}); len(hits) != 1 {
			t.Errorf("binary %v: %d hits for a word past the last position, want 1", binary, len(hits))
		}
	}
	for i := range stored[true] {
		if stored[true][i] != stored[false][i] {
			t.Errorf("%s: the vector sent in binary and the literal are stored differently", arts[i].ExternalURL)
		}
	}
}
