package store

import (
	"fmt"

	"github.com/feedpoller/feedpoller/store/textquery"
)

// textMatch looks the query up in the FTS5 index, whose rowid is the
// article's id.
func (sqliteDialect) textMatch(art string, q textquery.Query) (string, []any) {
	return art + ".id IN (SELECT rowid FROM feed_articles_fts WHERE feed_articles_fts MATCH ?)", []any{q.FTS5()}
}

// sqliteRank is BM25 with a title match worth ten body matches and a
// summary match four: bm25() is lower for better matches.
const sqliteRank = `bm25(feed_articles_fts, 10.0, 4.0, 1.0)`

// search ranks every match by BM25 first and only then builds snippets,
// for the rows kept: snippet() re-reads an article's text, which costs
// more than ranking it.
func (sqliteDialect) search(q textquery.Query, where string, whereArgs []any, limit int) (string, []any) {
	match := q.FTS5()
	stmt := `WITH top AS (
		SELECT a.id, ` + sqliteRank + ` AS rank_value FROM feed_articles_fts
		JOIN feed_articles a ON a.id = feed_articles_fts.rowid
		WHERE feed_articles_fts MATCH ? AND ` + where + `
		ORDER BY rank_value, a.id DESC LIMIT ` + fmt.Sprint(limit) + `)
	SELECT a.id, a.title, a.external_url AS url, a.feed_source_id AS source_id, s.title AS source_title,
		s.url AS source_url, a.published_at, a.relevance_score, a.summary, -top.rank_value AS score,
		(SELECT snippet(feed_articles_fts, -1, '**', '**', '…', 32) FROM feed_articles_fts
			WHERE feed_articles_fts MATCH ? AND rowid = top.id) AS snippet,
		(SELECT MIN(c.id) FROM content_items c WHERE c.feed_article_id = a.id) AS content_item_id
	FROM top JOIN feed_articles a ON a.id = top.id
	LEFT JOIN feed_sources s ON s.id = a.feed_source_id
	ORDER BY top.rank_value, a.id DESC`
	args := append([]any{match}, whereArgs...)
	return stmt, append(args, match)
}
