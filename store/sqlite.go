package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite" // embedded SQLite driver, no cgo
)

// sqliteDialect is the embedded SQLite (modernc.org/sqlite, pure Go): one
// writer at a time, timestamps kept as text, an authorizer for the
// read-only connection.
type sqliteDialect struct{}

func (sqliteDialect) name() string { return SQLite }

// defaultSQLitePool is the pool size when none is configured: readers
// share the file, and writers queue on its one write lock anyway.
const defaultSQLitePool = 4

// sqlitePragmas: WAL lets the API read while a poll writes; immediate
// transactions and a busy timeout make concurrent writers queue instead
// of failing; _time_format=sqlite writes times in a form SQLite's own
// date functions read; temp_store(MEMORY) keeps a statement's journal
// and its sorts off the disk (a save's multi-row INSERT into the story
// term index writes one per statement; about a tenth of a placement's
// CPU at 10 000 articles went to its file I/O). cache_size gives each
// connection 8 MiB of pages instead of 2: a placement reads the term
// index and document frequencies of recent weeks, which then stay in
// the cache rather than being read again through system calls (another
// tenth at 10 000 articles); the four connections of the pool and the
// writing transactions' one hold at most 40 MiB. wal_autocheckpoint
// lets the log grow to 8 000 pages (about 32 MiB on disk) before a
// commit copies it into the database, instead of 1 000: saves rewrite
// the same pages (this week's document frequencies, the full-text
// index's newest segments, the latest stories), and a checkpoint copies
// a page once however often the log holds it. The checkpoints were 7 %
// of the daemon's CPU in one workspace of 2 000 sources; polls cost
// 0.89-0.96x with the longer log.
const sqlitePragmas = "?_pragma=busy_timeout(15000)&_pragma=journal_mode(WAL)" +
	"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)" +
	"&_pragma=temp_store(MEMORY)&_pragma=cache_size(-8192)&_pragma=wal_autocheckpoint(8000)" +
	"&_txlock=immediate&_time_format=sqlite"

func (sqliteDialect) openPool(path string, opts Options) (*sqlx.DB, *sqlx.DB, int, error) {
	maxOpen := opts.MaxOpenConns
	if maxOpen <= 0 {
		maxOpen = defaultSQLitePool
	}
	if dir := filepath.Dir(path); dir != "" && dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, nil, 0, fmt.Errorf("create database directory %s: %w", dir, err)
		}
	}
	stmts := opts.statements(DefaultSQLiteStatements)
	c, err := sqliteConnector(path, "file:"+path+sqlitePragmas, stmts)
	if err != nil {
		return nil, nil, 0, err
	}
	// The writing transactions and the claims of sources have a
	// connection of their own, which no read between them takes (see
	// Store.writer); the pool is for the rest, which may read at the
	// same time (WAL).
	writer := sqlx.NewDb(sql.OpenDB(c), "sqlite")
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	return sqlx.NewDb(sql.OpenDB(c), "sqlite"), writer, maxOpen, nil
}

// openReadOnly opens the file with mode=ro and query_only; it never
// creates one.
// The timeout is the caller's context deadline: SQLite interrupts the
// statement when it passes.
func (sqliteDialect) openReadOnly(path string, _ time.Duration) (*sqlx.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no SQLite database at %s (run `feedpoller migrate` to create one): %w", path, err)
	}
	return sqlx.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)&_time_format=sqlite")
}

// queryReadOnly installs the read authorizer on the connection, then runs
// the query without a transaction: a single SELECT reads one consistent
// snapshot by itself, and BEGIN would need the transaction control the
// authorizer refuses.
func (sqliteDialect) queryReadOnly(ctx context.Context, conn *sql.Conn, query string) (*sql.Rows, func(), error) {
	var denied atomic.Bool
	if err := conn.Raw(func(dc any) error { return installReadAuthorizer(dc, &denied) }); err != nil {
		return nil, nil, err
	}
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		if denied.Load() {
			// SQLite reports some denials (a function's) as a plain
			// SQLITE_ERROR: the authorizer knows it refused.
			return nil, nil, &deniedError{err}
		}
		return nil, nil, err
	}
	return rows, func() {}, nil
}

// readPragmas are the PRAGMAs that only describe the schema.
var readPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true, "index_info": true,
	"index_xinfo": true, "foreign_key_list": true, "database_list": true, "collation_list": true,
	"function_list": true, "module_list": true, "pragma_list": true, "compile_options": true,
}

// installReadAuthorizer makes the SQLite connection refuse, while a
// statement is compiled, everything but reading: writes, schema changes,
// ATTACH and DETACH (VACUUM INTO compiles as an ATTACH), transaction
// control, PRAGMAs other than the schema-reading ones, reading the
// tables of secrets, and load_extension() (which the driver refuses too, with a plain
// SQLITE_ERROR). denied records that it refused something.
func installReadAuthorizer(driverConn any, denied *atomic.Bool) error {
	reg, ok := driverConn.(sqlite.AuthorizerRegisterer)
	if !ok {
		return errors.New("the SQLite driver offers no authorizer")
	}
	return reg.RegisterAuthorizer(func(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
		switch action {
		case sqlite.AuthFunction:
			// arg2 is the function's name.
			if !strings.EqualFold(arg2, "load_extension") {
				return sqlite.AuthorizerOK
			}
		case sqlite.AuthRead:
			// arg1 is the table's name: the secrets are not read here.
			if !secretTableNames[strings.ToLower(arg1)] {
				return sqlite.AuthorizerOK
			}
		case sqlite.AuthSelect, sqlite.AuthRecursive:
			return sqlite.AuthorizerOK
		case sqlite.AuthPragma:
			if readPragmas[strings.ToLower(arg1)] {
				return sqlite.AuthorizerOK
			}
		}
		denied.Store(true)
		return sqlite.AuthorizerDeny
	})
}

// asTime compares julianday() of both sides. SQLite keeps timestamps as
// text, and writers use several forms: the column defaults write
// 2026-01-02T03:04:05.000Z, datetime('now') writes 2026-01-02 03:04:05,
// this driver 2026-01-02 03:04:05.123+00:00. As text they do not sort in
// time order (a row inserted by another client would never be due); the
// due index is built on the same expression.
func (sqliteDialect) asTime(expr string) string { return "julianday(" + expr + ")" }

// dueCondition repeats the partial index's WHERE word for word: SQLite
// only uses a partial index whose condition the query repeats (is_active
// = 1, not a bare is_active), and an expression index only for the same
// expression.
func (d sqliteDialect) dueCondition(param string) string {
	return "is_active = 1 AND consecutive_failures < 10 AND " + d.asTime("next_poll_at") + " <= " + d.asTime(param)
}

func (sqliteDialect) activeCondition() string { return "is_active = 1" }

func (sqliteDialect) unhealthyCondition() string {
	return "(consecutive_failures > 0 OR is_active = 0)"
}

// claimDue needs no locking: SQLite has one writer at a time, and the
// statement is atomic by itself.
func (d sqliteDialect) claimDue() string {
	return `UPDATE feed_sources SET due_at = next_poll_at, next_poll_at = ?1, lease_until = ?1, lease_owner = ?2
		WHERE id IN (SELECT id FROM feed_sources
			WHERE ` + d.dueCondition("?3") + `
			ORDER BY ` + d.asTime("next_poll_at") + ` LIMIT ?4)
		RETURNING ` + sourceColumns
}

// claimDeliveries needs no locking (one writer at a time). SQLite's
// RETURNING may not name another table, so the webhook's url and secret
// come from subqueries.
func (d sqliteDialect) claimDeliveries() string {
	return `UPDATE webhook_deliveries SET lease_owner = ?1, lease_until = ?2
		WHERE id IN (SELECT p.id FROM webhook_deliveries p JOIN webhooks pw ON pw.id = p.webhook_id AND pw.is_active = 1
			WHERE p.status = 'pending' AND ` + d.asTime("p.next_attempt_at") + ` <= ` + d.asTime("?3") + `
				AND (p.lease_until IS NULL OR ` + d.asTime("p.lease_until") + ` <= ` + d.asTime("?3") + `)
			ORDER BY ` + d.asTime("p.next_attempt_at") + `, p.id LIMIT ?4)
		RETURNING id, webhook_id, workspace_id, event,
			(SELECT url FROM webhooks WHERE webhooks.id = webhook_id) AS url,
			(SELECT secret FROM webhook_secrets WHERE webhook_secrets.webhook_id = webhook_deliveries.webhook_id) AS secret,
			payload, attempts, next_attempt_at, created_at`
}

func (sqliteDialect) secretTable(name string) string { return name }

func (sqliteDialect) forUpdate() string { return "" }

// lockWorkspace needs no lock: transactions begin IMMEDIATE (see
// sqlitePragmas), so a transaction that writes holds the one write lock
// from its start.
func (sqliteDialect) lockWorkspace() string { return `SELECT 1 FROM workspaces WHERE id = ?` }

// lexicon: `x` and [x] identifiers, comments that do not nest. PRAGMA is
// further limited to the schema-reading ones by the authorizer.
func (sqliteDialect) lexicon() lexicon {
	return lexicon{readKeywords: []string{"SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA"},
		backtickIdents: true, bracketIdents: true,
		deniedNames: map[string]bool{"load_extension": true}, secretNames: secretTableNames}
}

func (sqliteDialect) explainPrefix() string { return `EXPLAIN QUERY PLAN ` }

// bookkeepingOnly: SQLite runs in the process, a statement costs no round
// trip, and a transaction of two is as cheap.
func (sqliteDialect) bookkeepingOnly() string { return "" }

// deniedError is a statement the read authorizer refused to compile.
type deniedError struct{ err error }

func (e *deniedError) Error() string { return e.err.Error() }
func (e *deniedError) Unwrap() error { return e.err }

// storyPostings: saves read the store's copy of the term index instead
// (storyCopies), or, in a workspace without one, the entries they read
// once (copySave.readSaved); both load a workspace's entries from a time
// on, a range of the primary key (workspace, time: migration 0027). This
// reads the table as it is kept, for the tests that compare them with it:
// the window's entries of the workspace (each article's row unpacked,
// migration 0029), those of the terms asked for
// that fewer than perTerm entries of their term are newer than (so the
// perTerm newest and those tied with the last, as the copy answers).
// Merged stories are looked up in stories_merged_id (merged ones only,
// migration 0019), not in stories: named, because SQLite would rather
// look a row up by its rowid.
func (sqliteDialect) storyPostings(perTerm int) string {
	return `SELECT t.term, t.feed_article_id, COALESCE(s.merged_into, t.story_id) AS story_id, t.reported_unix
		FROM (SELECT CAST(j.value AS INTEGER) AS term, x.feed_article_id, x.story_id, x.reported_unix,
				RANK() OVER (PARTITION BY j.value ORDER BY x.reported_unix DESC) AS newer
			FROM story_terms x, json_each(x.terms) j WHERE x.workspace_id = ?1 AND x.reported_unix >= ?3
				AND j.value IN (SELECT value FROM json_each(?2))) AS t
		LEFT JOIN stories s INDEXED BY stories_merged_id ON s.id = t.story_id AND s.merged_into IS NOT NULL
		WHERE t.newer <= ` + strconv.Itoa(perTerm)
}

// storyMembers: per story (from a JSON array parameter) a scalar
// subquery finds the julianday of its perStory-th latest article in
// range (an index range scan newest first with OFFSET), and the join
// reads the articles from there on along the (story_id,
// julianday(reported_at)) index: at least perStory per story, more only
// where articles tie on the last time (StoryMembers trims). A member's
// terms are its row's of the term index (migration 0029), found along
// story_terms_article, the JSON array's brackets cut (an article filed at
// two times has two rows, whose lists StoryMembers sorts together). The
// workspace is the member's own column: named by the parameter there,
// SQLite prepared the statement again at every run.
func (sqliteDialect) storyMembers(perStory int) string {
	return `WITH k(story) AS (SELECT DISTINCT value FROM json_each(?2))
		SELECT a.id, a.story_id, a.reported_at, a.story_profile,
			COALESCE((SELECT group_concat(substr(t.terms, 2, length(t.terms) - 2), ',') FROM story_terms t
				WHERE t.feed_article_id = a.id AND t.workspace_id = a.workspace_id), '') AS terms
		FROM k JOIN feed_articles a ON a.story_id = k.story
			AND julianday(a.reported_at) >= MAX(julianday(?3), COALESCE((SELECT julianday(a2.reported_at) FROM feed_articles a2
				WHERE a2.story_id = k.story AND julianday(a2.reported_at) >= julianday(?3) AND julianday(a2.reported_at) <= julianday(?4)
				ORDER BY julianday(a2.reported_at) DESC LIMIT 1 OFFSET ` + strconv.Itoa(perStory-1) + `), julianday(?3)))
			AND julianday(a.reported_at) <= julianday(?4)
		WHERE +a.workspace_id = ?1`
}

func (sqliteDialect) lockStoryTerms() string      { return "" }
func (sqliteDialect) claimStoryTerms() string     { return "" }
func (sqliteDialect) runningTransactions() string { return "" }
func (sqliteDialect) runningOf() string           { return "" }

// reserveStoryIDs: a placeholder row per story, in one statement. SQLite
// cannot declare a reference deferred short of rebuilding the tables or
// editing their stored schema in place, and deferring them for the
// transaction (a flag pragma) expires every
// prepared statement of the connection, so each was prepared again at
// its next run. AUTOINCREMENT gives the ids after the highest one ever
// given (sqlite_sequence remembers it, so a deleted placeholder's id is
// not given again); transactions begin IMMEDIATE, so no other one
// inserts a story before this one commits.
func (sqliteDialect) reserveStoryIDs(n int, workspace int64, at time.Time) (string, []any) {
	return `INSERT INTO stories (workspace_id, first_article_id, first_reported_at, last_reported_at, article_count, created_at)
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		SELECT ?, NULL, ?, ?, 0, ? FROM n RETURNING id`, []any{n, workspace, at, at, at}
}

func (sqliteDialect) storyPlaceholders() bool { return true }

// insertTermRows: a row of parameters per article and time, its terms
// one JSON array, ascending (migration 0029); the save lists an
// article's entries together. A row filed already (an article the poll
// carried twice, by this statement or an earlier one) takes the terms it
// lacked, and keeps its story, as the entries it held would have.
func (sqliteDialect) insertTermRows(workspace int64, rows termRows) (string, []any) {
	args := make([]any, 0, 5*len(rows.terms))
	n := 0
	for i := 0; i < len(rows.terms); n++ {
		j := i + 1
		for j < len(rows.terms) && rows.articles[j] == rows.articles[i] && rows.reported[j] == rows.reported[i] {
			j++
		}
		terms := slices.Clone(rows.terms[i:j])
		slices.Sort(terms)
		args = append(args, workspace, rows.reported[i], rows.articles[i], rows.stories[i], termList(slices.Compact(terms)))
		i = j
	}
	return multiRowInsert(`INSERT INTO story_terms (workspace_id, reported_unix, feed_article_id, story_id, terms) VALUES `,
		5, n, ` ON CONFLICT (workspace_id, reported_unix, feed_article_id) DO UPDATE SET terms =
			(SELECT json_group_array(v) FROM (SELECT value AS v FROM json_each(story_terms.terms)
				UNION SELECT value FROM json_each(excluded.terms) ORDER BY v))`), args
}

// termList is terms as the JSON array story_terms keeps (SQLite).
func termList(terms []int64) string {
	b := make([]byte, 0, 2+11*len(terms))
	b = append(b, '[')
	for i, t := range terms {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, t, 10)
	}
	return string(append(b, ']'))
}

// moveTerms: the entries of an article through story_terms_article.
// The workspace is sameWorkspace's unary plus: named plainly, it let
// SQLite read the workspace's part of the primary key, every entry of
// the workspace's term index, for the few articles moved.
func (d sqliteDialect) moveTerms(cases string) string {
	return `UPDATE story_terms SET story_id = CASE feed_article_id` + cases + ` END
		WHERE ` + sameWorkspace + ` AND ` + d.int64In("feed_article_id")
}

// pruneTerms: whole articles of one workspace, found and deleted along
// the primary key (workspace, reported time, article); the table
// keeps no index on the time alone for a prune across workspaces to use.
func (sqliteDialect) pruneTerms() string {
	return `DELETE FROM story_terms WHERE workspace_id = ?1 AND (reported_unix, feed_article_id) IN
		(SELECT reported_unix, feed_article_id FROM story_terms WHERE workspace_id = ?1 AND reported_unix < ?2 LIMIT ?3)`
}

// pruneDocFreq: one workspace's rows, along the primary key (workspace,
// period, term, shard).
func (sqliteDialect) pruneDocFreq() string {
	return `DELETE FROM story_doc_freq WHERE (workspace_id, period, term, shard) IN
		(SELECT workspace_id, period, term, shard FROM story_doc_freq WHERE workspace_id = ?1 AND period < ?2 LIMIT ?3)`
}

func (sqliteDialect) pruneByWorkspace() bool { return true }

// pruneDocFreqLog: one workspace's rows, along the primary key
// (workspace, period, id).
func (sqliteDialect) pruneDocFreqLog() string {
	return `DELETE FROM story_doc_freq_log WHERE workspace_id = ?1 AND (period, id) IN
		(SELECT period, id FROM story_doc_freq_log WHERE workspace_id = ?1 AND period < ?2 LIMIT ?3)`
}

func (sqliteDialect) int64In(expr string) string {
	return expr + " IN (SELECT value FROM json_each(?))"
}
func (sqliteDialect) timeParam() string { return "?" }

// docFreqWrites: the rows are one JSON object of periods, each an object
// of terms and their counts ({"2900":{"0":20,"17":3}}), the article
// count's (term 0) going to the save's shard; "WHERE true" is how SQLite
// tells an upsert's ON from a join's. json_each hands an object's keys
// and integer values as they are, parsing the text once; an array of
// [period, term, docs] rows made each json_extract parse its row again,
// three times a row, about a third of the statement's time. A save that
// logs inserts its weeks' objects of features as they are (migration
// 0030), and upserts its article counts; one that moves the log deletes
// the workspace's logged rows and upserts its own counts, which hold
// theirs (the store reads and sums them first, loggedCounts). Summed in
// the statement, a window over every logged term and a GROUP BY, a log of
// 240 articles took 38–44 ms to move where they share few terms (one
// feed's articles saved again, as the pipeline benchmarks do), against
// 5–6 ms now; with terms of a news-sized vocabulary the rows' insert is
// most of it, 53–57 against 43–50 ms (BenchmarkDocFreqLogMove).
func (sqliteDialect) docFreqWrites(ws, shard int64, periods, terms, docs []int64, how docFreqWrite) []statement {
	upsert := statement{`INSERT INTO story_doc_freq (workspace_id, period, term, shard, docs)
		SELECT ?1, CAST(p.key AS INTEGER), CAST(r.key AS INTEGER), CASE WHEN r.key = '0' THEN ?2 ELSE 0 END, r.value
		FROM json_each(?3) AS p, json_each(p.value) AS r WHERE true ` + sqliteAddDocs, nil}
	if how != docFreqToLog {
		upsert.args = []any{ws, shard, periodsJSON(periods, terms, docs, func(int64) bool { return true })}
		if how == docFreqToTable {
			return []statement{upsert}
		}
		return []statement{
			{`DELETE FROM story_doc_freq_log WHERE workspace_id = ?1`, []any{ws}},
			upsert,
		}
	}
	upsert.args = []any{ws, shard, periodsJSON(periods, terms, docs, func(t int64) bool { return t == docFreqAll })}
	features := loggedTerms(periods, terms, docs)
	if features == "{}" {
		return []statement{upsert}
	}
	return []statement{
		{`INSERT INTO story_doc_freq_log (workspace_id, period, id, terms)
			SELECT ?1, CAST(p.key AS INTEGER), COALESCE((SELECT MAX(l.id) FROM story_doc_freq_log AS l
				WHERE l.workspace_id = ?1 AND l.period = CAST(p.key AS INTEGER)), 0) + 1, p.value
			FROM json_each(?2) AS p`, []any{ws, features}},
		upsert,
	}
}

// sqliteAddDocs is the upsert's conflict clause: counts add up.
const sqliteAddDocs = `ON CONFLICT (workspace_id, term, period, shard) DO UPDATE SET docs = story_doc_freq.docs + excluded.docs`

// loggedTerms is the feature rows (every term but the article count) as
// one JSON object of periods, each an array of its terms, ascending, a
// term as many times as its count, each as its difference from the one
// before (the first as it is): the rows of story_doc_freq_log.
func loggedTerms(periods, terms, docs []int64) string {
	byWeek := map[int64][]int64{}
	for i, t := range terms {
		for n := int64(0); t != docFreqAll && n < docs[i]; n++ {
			byWeek[periods[i]] = append(byWeek[periods[i]], t)
		}
	}
	b := []byte{'{'}
	for n, w := range slices.Sorted(maps.Keys(byWeek)) {
		if n > 0 {
			b = append(b, ',')
		}
		ts := byWeek[w]
		slices.Sort(ts)
		b = append(strconv.AppendInt(append(b, '"'), w, 10), `":[`...)
		var prev int64
		for i, t := range ts {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, t-prev, 10)
			prev = t
		}
		b = append(b, ']')
	}
	return string(append(b, '}'))
}

// periodsJSON is the rows whose term keep reports true as one JSON
// object of periods, each an object of terms and their counts, periods
// in ascending order and terms in the order given.
func periodsJSON(periods, terms, docs []int64, keep func(term int64) bool) string {
	order := make([]int, 0, len(periods))
	for i := range periods {
		if keep(terms[i]) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(periods[a], periods[b]) })
	b := make([]byte, 0, 16*len(order)+2)
	b = append(b, '{')
	for n, i := range order {
		if n == 0 || periods[i] != periods[order[n-1]] {
			if n > 0 {
				b = append(b, "},"...)
			}
			b = append(strconv.AppendInt(append(b, '"'), periods[i], 10), `":{`...)
		} else {
			b = append(b, ',')
		}
		b = append(strconv.AppendInt(append(b, '"'), terms[i], 10), `":`...)
		b = strconv.AppendInt(b, docs[i], 10)
	}
	if len(order) > 0 {
		b = append(b, '}')
	}
	return string(append(b, '}'))
}

// docFreqRead: a save of a small workspace reads the tables, through
// this and docFreqLogRead; a big workspace's saves read the store's copy
// (storyCopies), which loads a workspace's weeks along the primary key.
// The table's rows of the terms asked for, unless the workspace has no
// feature row there (every one logged: one look along the primary key
// spares a look-up per term and week).
func (sqliteDialect) docFreqRead() string {
	return `SELECT term, SUM(docs) AS docs FROM story_doc_freq WHERE workspace_id = ?1 AND period >= ?2
		AND term IN (SELECT value FROM json_each(?3))
		AND (term = 0 OR EXISTS (SELECT 1 FROM story_doc_freq AS f WHERE f.workspace_id = ?1 AND f.period >= ?2 AND f.term > 0))
		GROUP BY term`
}

// docFreqLogRead: the logged rows as they are, which the store parses
// (parseTermList, then the differences summed): the terms asked for
// matched through json_each cost the changed poll of a small workspace
// more than the table's look-ups it replaced.
func (sqliteDialect) docFreqLogRead() string {
	return `SELECT period, terms FROM story_doc_freq_log WHERE workspace_id = ?1 AND period >= ?2`
}

// storyCopies: one process writes at a time, so a copy kept by the
// process is checked cheaply (storycopy.go).
func (sqliteDialect) storyCopies() *storyCopies { return newStoryCopies() }

// docFreqTerm: SQLite's integers take the term as it is.
func (sqliteDialect) docFreqTerm(t uint32) int64 { return int64(t) }

// freqCopies: the story index's copy holds the frequencies (storyCopies).
func (sqliteDialect) freqCopies() *pgFreqCopies { return nil }

// int64List: a JSON array, read by json_each.
func (sqliteDialect) int64List(keys []int64) any {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatInt(k, 10))
	}
	sb.WriteByte(']')
	return sb.String()
}

func (sqliteDialect) daysBetween(from, to string) string {
	return "(julianday(" + to + ") - julianday(" + from + "))"
}
func (sqliteDialect) greatest(a, b string) string { return "MAX(" + a + ", " + b + ")" }
func (sqliteDialect) least(a, b string) string    { return "MIN(" + a + ", " + b + ")" }
