package store

import (
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/store/textquery"
)

// ftsTextColumns are the searched columns of feed_articles_fts; its
// fourth, workspace, holds the article's workspace as a token.
var ftsTextColumns = []string{"title", "summary", "content_markdown"}

// textMatch looks the query up in the FTS5 index, whose rowid is the
// article's id, in the text columns only.
func (sqliteDialect) textMatch(art string, q textquery.Query) (string, []any) {
	return art + ".id IN (SELECT rowid FROM feed_articles_fts WHERE feed_articles_fts MATCH ?)", []any{q.FTS5In(ftsTextColumns...)}
}

// sqliteRank is BM25 with a title match worth ten body matches and a
// summary match four (the workspace column counts for nothing): bm25() is
// lower for better matches.
const sqliteRank = `bm25(feed_articles_fts, 10.0, 4.0, 1.0, 0.0)`

// rankWindow bounds the matches an unfiltered search ranks: BM25 costs
// each match, so a word in most of 100 000 articles would take a tenth of
// a second. Past it, the newest rankWindow matches are ranked.
const rankWindow = 10000

// search finds the workspace's matches inside the index itself (the
// workspace is a token of it). Unfiltered, FTS5 ranks them (ORDER BY
// rank, the weighted BM25 the migration configures) and yields the best
// first. A search with other filters (source, dates, relevance) reads each
// match's row to apply them, then ranks every match. Either way the
// statement reads the text of the rows kept only, and only the windows
// snippets are built from (searchColumns): FTS5's snippet() re-reads an
// article's whole text and costs the square of the matches in it.
func (sqliteDialect) search(q textquery.Query, workspaceID int64, where string, whereArgs []any, filtered bool, limit int) (string, []any) {
	match := fmt.Sprintf(`workspace : "w%d" AND `, workspaceID) + q.FTS5In(ftsTextColumns...)
	var top string
	var args []any
	if filtered {
		top = `SELECT a.id, ` + sqliteRank + ` AS rank_value FROM feed_articles_fts
			JOIN feed_articles a ON a.id = feed_articles_fts.rowid
			WHERE feed_articles_fts MATCH ? AND ` + where + `
			ORDER BY rank_value, a.id DESC LIMIT ` + fmt.Sprint(limit)
		args = append([]any{match}, whereArgs...)
	} else {
		top = `SELECT rowid AS id, rank AS rank_value FROM feed_articles_fts
			WHERE feed_articles_fts MATCH ? AND rowid >= COALESCE((SELECT rowid FROM feed_articles_fts
				WHERE feed_articles_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ` + fmt.Sprint(rankWindow-1) + `), 0)
			ORDER BY rank LIMIT ` + fmt.Sprint(limit)
		args = []any{match, match}
	}
	stmt := `WITH top AS (` + top + `)
	SELECT ` + searchColumns() + `, -top.rank_value AS score
	FROM top JOIN feed_articles a ON a.id = top.id
	LEFT JOIN feed_sources s ON s.id = a.feed_source_id
	ORDER BY top.rank_value, a.id DESC`
	return strings.TrimSpace(stmt), args
}

// searchVectorColumn: FTS5 tokenises the text itself, through the
// triggers of feed_articles_fts.
func (sqliteDialect) searchVectorColumn() string { return "" }
