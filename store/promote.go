package store

import (
	"context"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/jmoiron/sqlx"
)

// promotion is an article to promote: it passed relevance, it was
// inserted by this poll, and it has the id it was inserted under.
type promotion struct {
	ArticleID int64
	Article   model.FeedArticle
}

// promoted is a content item promote created, and the article it came
// from.
type promoted struct {
	ID            int64 `db:"id"`
	FeedArticleID int64 `db:"feed_article_id"`
}

// promotionCandidates picks, in order, the articles of a batch that asked
// to be promoted and were actually inserted (inserted maps their keys to
// their ids). An article without a content hash is never promoted: the
// hash is what content-hash dedup compares.
func promotionCandidates(arts []model.NewArticle, inserted map[articleKey]int64) []promotion {
	var out []promotion
	for _, na := range arts {
		if !na.Promote || na.Article.ContentTextHash == "" {
			continue
		}
		if id, ok := inserted[keyOf(na.Article)]; ok {
			out = append(out, promotion{ArticleID: id, Article: na.Article})
		}
	}
	return out
}

// promoteColumnCount is the number of placeholders per row of promote.
const promoteColumnCount = 11

// promote creates the content items of candidates in one statement and
// returns those it created. Promotion is where content-hash dedup happens:
// UNIQUE(workspace_id, content_text_hash) admits one content item per text
// in a workspace, whatever URL or source it came from, and ON CONFLICT DO
// NOTHING turns a second one into a content duplicate (candidates minus
// what is returned) rather than an error. It runs in the poll's
// transaction, so an item is promoted exactly when its article is kept;
// t is when, the articles' created_at.
func (s *Store) promote(ctx context.Context, tx *sqlx.Tx, p model.PollSave, candidates []promotion, t time.Time) ([]promoted, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	query := multiRowInsert(`INSERT INTO content_items (workspace_id, feed_article_id, url, title, content_markdown,
		content_text_hash, relevance_score, matched_terms, published_at, promoted_at, story_id) VALUES `, promoteColumnCount,
		len(candidates), ` ON CONFLICT (workspace_id, content_text_hash) DO NOTHING RETURNING id, feed_article_id`)
	args := make([]any, 0, len(candidates)*promoteColumnCount)
	for _, c := range candidates {
		a := c.Article
		args = append(args, p.WorkspaceID, c.ArticleID, a.ExternalURL, a.Title, a.ContentMarkdown, a.ContentTextHash,
			a.RelevanceScore, termsJSON(a.MatchedTerms), utcPtr(a.PublishedAt), t, a.StoryID)
	}
	var out []promoted
	if err := tx.SelectContext(ctx, &out, s.q(query), args...); err != nil {
		return nil, fmt.Errorf("promote articles of source %d: %w", p.SourceID, err)
	}
	return out, nil
}
