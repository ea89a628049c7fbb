package store

import (
	"context"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/lexemes"
)

// searchLexemes is the version of the daemon's reading of text
// (package lexemes) that feed_articles.search_lexemes records; 0 is
// PostgreSQL's text parser. Migration 0017 makes it the column's default.
const searchLexemes = 1

// lexiconWords is how many words' lexemes the store remembers: the
// common words of every language its articles are in, a few megabytes.
const lexiconWords = 50000

// indexBatch is how many articles one statement of IndexSearchText
// recomputes: a few megabytes of text read and a short transaction.
const indexBatch = 100

// searchVectorColumn is the column of feed_articles that its INSERT
// fills with each article's search vector (articleVector), "" when the
// database tokenises the text itself (SQLite's FTS5) or the store was
// told to write none (Options.NoSearchVectors).
func (s *Store) searchVectorColumn() string {
	if s.noSearchVectors {
		return ""
	}
	return s.d.searchVectorColumn()
}

// searchVectors are the search vectors of a save's articles, one per
// article, or nil when the INSERT writes none (searchVectorColumn): each
// in PostgreSQL's binary format when parameters are sent in binary
// (binaryVectors), else a tsvector literal. A save computes them before
// its transaction opens: they are the larger part of the daemon's work
// for the index, and inside the transaction they would lengthen the time
// its locks are held.
func (s *Store) searchVectors(arts []model.NewArticle) []any {
	if s.searchVectorColumn() == "" {
		return nil
	}
	out := make([]any, len(arts))
	for i, na := range arts {
		a := na.Article
		summary := storedSummary(a)
		if s.binaryVectors {
			out[i] = s.lexicon.ArticleBinary(a.Title, summary, a.ContentMarkdown, bodyWeight(summary, a.ExtractionMethod))
		} else {
			out[i] = s.articleVector(a.Title, summary, a.ContentMarkdown, a.ExtractionMethod)
		}
	}
	return out
}

// articleVector is the search vector of an article as stored, as a
// tsvector literal: title, summary (the stored one: storedSummary) and
// body.
func (s *Store) articleVector(title, summary, body, method string) string {
	return s.lexicon.Article(title, summary, body, bodyWeight(summary, method))
}

// bodyWeight is the weight of an article's body in its vector: a
// summary's when it is the feed's summary itself, stored once.
func bodyWeight(summary, method string) lexemes.Weight {
	if summary == "" && method == model.ExtractionSummary {
		return lexemes.B
	}
	return lexemes.C
}

// IndexSearchText computes the search vector of every article that lacks
// the daemon's own, in batches of indexBatch, each its own short
// transaction, until none is left or ctx ends; it returns how many it
// computed. They are the articles stored before migration 0017 (whose
// vectors PostgreSQL's parser made), rows an older binary wrote, and rows
// whose text was changed by hand. Replicas running it together share the
// work (SKIP LOCKED). On SQLite it does nothing: FTS5 indexes the text.
func (s *Store) IndexSearchText(ctx context.Context) (int64, error) {
	if s.d.searchVectorColumn() == "" {
		return 0, nil
	}
	var total int64
	for {
		n, err := s.indexSearchBatch(ctx)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// pendingRow is an article whose vector is to be computed.
type pendingRow struct {
	ID      int64  `db:"id"`
	Title   string `db:"title"`
	Summary string `db:"summary"`
	Body    string `db:"content_markdown"`
	Method  string `db:"extraction_method"`
}

func (s *Store) indexSearchBatch(ctx context.Context) (int64, error) {
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("index search text: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	var rows []pendingRow
	if err := tx.SelectContext(ctx, &rows, s.q(pendingVectors), indexBatch); err != nil {
		return 0, fmt.Errorf("index search text: read articles: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	args := make([]any, 0, 2*len(rows)+1)
	args = append(args, searchLexemes)
	for _, r := range rows {
		args = append(args, r.ID, s.articleVector(r.Title, r.Summary, r.Body, r.Method))
	}
	if _, err := tx.ExecContext(ctx, s.q(setVectors(len(rows))), args...); err != nil {
		return 0, fmt.Errorf("index search text: store vectors of articles %d–%d: %w", rows[0].ID, rows[len(rows)-1].ID, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("index search text: commit: %w", err)
	}
	return int64(len(rows)), nil
}
