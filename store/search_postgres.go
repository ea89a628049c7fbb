package store

import (
	"fmt"

	"github.com/feedpoller/feedpoller/store/textquery"
)

// textMatch tests the article's search_vector, which the GIN index
// feed_articles_search covers.
func (postgres) textMatch(art string, q textquery.Query) (string, []any) {
	expr, args := q.TSQuery()
	return art + ".search_vector @@ " + expr, args
}

// headlineOptions: the match between ** and **, up to two passages of a
// sentence or so.
const headlineOptions = `StartSel=**, StopSel=**, MinWords=12, MaxWords=32, MaxFragments=2, FragmentDelimiter=" … "`

// search ranks the matches (ts_rank, normalised by document length) and
// builds headlines only for the rows kept: ts_headline re-parses an
// article's text, which costs more than ranking it. The headline reads the
// summary and the start of the body, as the index does. where holds the
// workspace, which the GIN index does not: PostgreSQL combines it with the
// workspace's index.
func (postgres) search(q textquery.Query, _ int64, where string, whereArgs []any, _ bool, limit int) (string, []any) {
	expr, qargs := q.TSQuery()
	stmt := `WITH top AS (
		SELECT a.id, ts_rank(a.search_vector, ` + expr + `, 1) AS score FROM feed_articles a
		WHERE a.search_vector @@ ` + expr + ` AND ` + where + `
		ORDER BY score DESC, a.id DESC LIMIT ` + fmt.Sprint(limit) + `)
	SELECT a.id, a.title, a.external_url AS url, a.feed_source_id AS source_id, s.title AS source_title,
		s.url AS source_url, a.published_at, a.relevance_score, COALESCE(NULLIF(a.extractive_summary, ''), a.summary) AS summary, top.score,
		ts_headline('` + textquery.Config + `', a.summary || E'\n\n' || left(a.content_markdown, 30000), ` + expr + `, '` + headlineOptions + `') AS snippet,
		(SELECT MIN(c.id) FROM content_items c WHERE c.feed_article_id = a.id) AS content_item_id
	FROM top JOIN feed_articles a ON a.id = top.id
	LEFT JOIN feed_sources s ON s.id = a.feed_source_id
	ORDER BY top.score DESC, a.id DESC`
	args := append(append(append([]any{}, qargs...), qargs...), whereArgs...)
	return stmt, append(args, qargs...)
}
