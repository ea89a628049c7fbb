package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/jmoiron/sqlx"
)

// articleKey identifies an article within a workspace: its URL and page
// revision, the columns of UNIQUE(workspace_id, external_url, revision).
type articleKey struct {
	url string
	rev int
}

// keyOf is the key an article is stored under (revision 1 when unset).
func keyOf(a model.FeedArticle) articleKey { return articleKey{a.ExternalURL, max(a.Revision, 1)} }

// articleColumnCount is the number of placeholders per row of
// insertArticles.
const articleColumnCount = 29

// insertArticles inserts one batch of a poll's articles in one statement
// created at t, and returns the ids of the rows it inserted, by key.
//
// Dedup has already decided these articles are new (dedup.go looked them
// up before the poll's pipeline ran), but another poll can store the same
// URL between that lookup and this insert: two sources of a workspace
// carrying one article, or a poll that lost its lease to another replica.
// ON CONFLICT DO NOTHING on UNIQUE(workspace_id, external_url, revision)
// is the race guard: the later insert keeps nothing, the transaction goes
// on, and the row is counted as a duplicate instead of failing the poll.
// Only the rows RETURNING reports were inserted, so only they are
// promoted.
//
// vectors are the articles' search vectors (searchVectors), nil when the
// INSERT writes none.
func (s *Store) insertArticles(ctx context.Context, tx *sqlx.Tx, p model.PollSave, arts []model.NewArticle, vectors []any,
	t time.Time) (map[articleKey]int64, error) {
	columns, vector := articleColumnCount, ""
	if vectors != nil {
		columns, vector = columns+1, ", "+s.searchVectorColumn()
	}
	query := multiRowInsert(`INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, external_id, title, author,
		published_at, summary, content_markdown, extraction_method, word_count, relevance_score, matched_terms,
		content_text_hash, revision, previous_article_id, reading_time_seconds, input_tokens, output_tokens,
		quality_score, language, created_at, input_tokens_o200k, output_tokens_o200k,
		story_id, reported_at, extractive_summary, story_reason, story_profile`+vector+`) VALUES `, columns, len(arts),
		` ON CONFLICT (workspace_id, external_url, revision) DO NOTHING RETURNING id, external_url, revision`)
	args := make([]any, 0, len(arts)*columns)
	for i, na := range arts {
		args = append(args, articleArgs(p, na.Article, t)...)
		args = append(args, na.Article.StoryID, reportedAt(na, t), na.Article.ExtractiveSummary,
			na.Article.StoryReason, nullBytes(na.Article.StoryProfile))
		if vectors != nil {
			args = append(args, vectors[i])
		}
	}
	var rows []struct {
		ID       int64  `db:"id"`
		URL      string `db:"external_url"`
		Revision int    `db:"revision"`
	}
	if err := tx.SelectContext(ctx, &rows, s.q(query), args...); err != nil {
		return nil, fmt.Errorf("save articles of source %d: %w", p.SourceID, err)
	}
	ids := make(map[articleKey]int64, len(rows))
	for _, r := range rows {
		ids[articleKey{r.URL, r.Revision}] = r.ID
	}
	return ids, nil
}

// nullBytes is b as a parameter, NULL when nil (an article stored
// without a profile).
func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

// articleArgs are one row's parameters of insertArticles.
func articleArgs(p model.PollSave, a model.FeedArticle, t time.Time) []any {
	return []any{p.WorkspaceID, p.SourceID, a.ExternalURL, a.ExternalID, a.Title, a.Author,
		utcPtr(a.PublishedAt), storedSummary(a), a.ContentMarkdown, a.ExtractionMethod, a.WordCount, a.RelevanceScore,
		termsJSON(a.MatchedTerms), a.ContentTextHash, max(a.Revision, 1), a.PreviousArticleID, a.ReadingTimeSeconds,
		a.InputTokens, a.OutputTokens, a.QualityScore, a.Language, t, a.InputTokensO200k, a.OutputTokensO200k}
}

// storedSummary is the summary column of an article: empty when the body
// is the summary itself (model.ExtractionSummary), so the text is stored
// and indexed once; summaryColumn reads it back.
func storedSummary(a model.FeedArticle) string {
	if a.ExtractionMethod == model.ExtractionSummary && a.Summary == a.ContentMarkdown {
		return ""
	}
	return a.Summary
}

// articleSummary is the summary of the feed article a as stored and read
// back (see storedSummary).
const articleSummary = `CASE WHEN a.summary = '' AND a.extraction_method = '` + model.ExtractionSummary +
	`' THEN a.content_markdown ELSE a.summary END`

// termsJSON is how matched terms are stored: a JSON array, never null.
func termsJSON(terms []string) string {
	if terms == nil {
		terms = []string{}
	}
	b, err := json.Marshal(terms)
	if err != nil {
		// A []string always encodes; this is unreachable.
		return "[]"
	}
	return string(b)
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
