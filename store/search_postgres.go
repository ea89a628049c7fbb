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

// search ranks the matches (ts_rank, normalised by document length) and
// reads the text of the rows kept only, and only the windows snippets are
// built from (searchColumns). where holds the workspace, which the GIN
// index does not: PostgreSQL combines it with the workspace's index.
func (postgres) search(q textquery.Query, _ int64, where string, whereArgs []any, _ bool, limit int) (string, []any) {
	expr, qargs := q.TSQuery()
	stmt := `WITH top AS (
		SELECT a.id, ts_rank(a.search_vector, ` + expr + `, 1) AS score FROM feed_articles a
		WHERE a.search_vector @@ ` + expr + ` AND ` + where + `
		ORDER BY score DESC, a.id DESC LIMIT ` + fmt.Sprint(limit) + `)
	SELECT ` + searchColumns() + `, top.score
	FROM top JOIN feed_articles a ON a.id = top.id
	LEFT JOIN feed_sources s ON s.id = a.feed_source_id
	ORDER BY top.score DESC, a.id DESC`
	args := append(append(append([]any{}, qargs...), qargs...), whereArgs...)
	return stmt, args
}

// searchVectorColumn: PostgreSQL's index holds the vectors the daemon
// computes (search_vector.go).
func (postgres) searchVectorColumn() string { return "search_vector" }

// pendingVectors reads a batch of the articles whose vector is to be
// computed, through the partial index feed_articles_search_pending (its
// condition word for word), locking them; rows another transaction holds
// are left to it.
const pendingVectors = `SELECT id, title, summary, content_markdown, extraction_method FROM feed_articles
	WHERE search_vector IS NULL OR search_lexemes < 1 ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED`

// setVectors stores n vectors: its parameters are the search_lexemes
// version, then (id, vector) pairs.
func setVectors(n int) string {
	return multiRowInsert(`UPDATE feed_articles a SET search_vector = v.vector::tsvector, search_lexemes = ?
	FROM (VALUES `, 2, n, `) AS v(id, vector) WHERE a.id = v.id::bigint`)
}
