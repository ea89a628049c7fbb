package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq" // PostgreSQL driver
)

// postgres is PostgreSQL through lib/pq: real timestamps, row locks for
// claiming side by side, a writable CTE for the 304 path.
type postgres struct{}

func (postgres) name() string { return Postgres }

// defaultPostgresPool is the pool size when none is configured.
const defaultPostgresPool = 20

func (postgres) openPool(dsn string, opts Options) (*sqlx.DB, *sqlx.DB, int, error) {
	maxOpen := opts.MaxOpenConns
	if maxOpen <= 0 {
		maxOpen = defaultPostgresPool
	}
	stmts := opts.statements(DefaultPostgresStatements)
	conn, err := newPGConnector(withBinaryParameters(dsn), stmts)
	if err != nil {
		return nil, nil, 0, err
	}
	db := sqlx.NewDb(sql.OpenDB(conn), "postgres")
	// Idle sessions are closed after a while: each one is a backend
	// process on the server.
	db.SetConnMaxIdleTime(5 * time.Minute)
	// Transactions take any connection of the pool: the server keeps
	// one cache for all of them.
	return db, nil, maxOpen, nil
}

// withBinaryParameters turns on lib/pq's binary_parameters unless the URL
// sets it: statements with parameters then take one round trip instead of
// two (no separate prepare), which halves the cost of a 304 poll's
// bookkeeping.
func withBinaryParameters(dsn string) string {
	if strings.Contains(dsn, "binary_parameters=") {
		return dsn
	}
	if strings.Contains(dsn, "?") {
		return dsn + "&binary_parameters=yes"
	}
	return dsn + "?binary_parameters=yes"
}

// binaryParameters reports whether the pool opened on dsn sends []byte
// parameters in binary: with binary_parameters=yes, the default that
// withBinaryParameters sets. Any other spelling counts as no, whose
// parameters go as text: a value written for binary would then not be
// read as meant.
func binaryParameters(dsn string) bool {
	return strings.Contains(withBinaryParameters(dsn), "binary_parameters=yes")
}

// openReadOnly opens a session whose transactions are read-only
// (default_transaction_read_only), with standard strings so that the
// server lexes quotes as checkReadQuery does, and whose statements the
// server stops after timeout, or after readLockTimeout waiting for a lock.
func (postgres) openReadOnly(dsn string, timeout time.Duration) (*sqlx.DB, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("default_transaction_read_only", "on")
	q.Set("standard_conforming_strings", "on")
	q.Set("statement_timeout", strconv.FormatInt(timeout.Milliseconds(), 10))
	q.Set("lock_timeout", strconv.FormatInt(min(timeout, readLockTimeout).Milliseconds(), 10))
	q.Set("idle_in_transaction_session_timeout", strconv.FormatInt(timeout.Milliseconds(), 10))
	if q.Get("application_name") == "" {
		q.Set("application_name", "feedpoller sql")
	}
	u.RawQuery = q.Encode()
	return sqlx.Open("postgres", u.String())
}

// queryReadOnly runs the query in a READ ONLY transaction, prepared: the
// extended protocol's Parse message holds exactly one command, so the
// server refuses a second one whatever checkReadQuery made of the text.
func (postgres) queryReadOnly(ctx context.Context, conn *sql.Conn, query string) (*sql.Rows, func(), error) {
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("begin: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		_ = tx.Rollback()
		return nil, nil, err
	}
	rows, err := stmt.QueryContext(ctx)
	done := func() {
		_ = stmt.Close()
		_ = tx.Rollback() // nothing to keep: the transaction only read
	}
	if err != nil {
		done()
		return nil, nil, err
	}
	return rows, done, nil
}

// asTime: PostgreSQL compares timestamptz values as they are.
func (postgres) asTime(expr string) string { return expr }

func (postgres) dueCondition(param string) string {
	return "is_active AND consecutive_failures < 10 AND next_poll_at <= " + param
}

func (postgres) activeCondition() string { return "is_active" }

func (postgres) unhealthyCondition() string { return "(consecutive_failures > 0 OR NOT is_active)" }

// claimDue leases with FOR UPDATE SKIP LOCKED, so replicas claim side by
// side without ever taking the same source. id = ANY(ARRAY(…)) rather
// than IN (…): the planner then looks the claimed ids up by primary key
// instead of hash-joining them against a scan of the whole table.
func (p postgres) claimDue() string {
	return `UPDATE feed_sources SET due_at = next_poll_at, next_poll_at = $1, lease_until = $1, lease_owner = $2
		WHERE id = ANY(ARRAY(SELECT id FROM feed_sources
			WHERE ` + p.dueCondition("$3") + `
			ORDER BY next_poll_at LIMIT $4 FOR UPDATE SKIP LOCKED))
		RETURNING ` + sourceColumns
}

// claimDeliveries locks the due rows with FOR UPDATE SKIP LOCKED, so
// workers of several daemons claim side by side and never share a row;
// the join leaves out the rows of disabled webhooks.
func (postgres) claimDeliveries() string {
	return `UPDATE webhook_deliveries d SET lease_owner = $1, lease_until = $2
		FROM webhooks w
		WHERE w.id = d.webhook_id AND d.id = ANY(ARRAY(SELECT p.id FROM webhook_deliveries p
			JOIN webhooks pw ON pw.id = p.webhook_id AND pw.is_active
			WHERE p.status = 'pending' AND p.next_attempt_at <= $3 AND (p.lease_until IS NULL OR p.lease_until <= $3)
			ORDER BY p.next_attempt_at, p.id LIMIT $4 FOR UPDATE OF p SKIP LOCKED))
		RETURNING d.id, d.webhook_id, d.workspace_id, d.event, w.url,
			(SELECT k.secret FROM feedpoller_secrets.webhook_secrets k WHERE k.webhook_id = w.id) AS secret,
			d.payload, d.attempts, d.next_attempt_at, d.created_at`
}

// secretsSchema holds the tables of secrets (migration 0012).
const secretsSchema = "feedpoller_secrets"

func (postgres) secretTable(name string) string { return secretsSchema + "." + name }

func (postgres) forUpdate() string { return " FOR UPDATE" }

// lockWorkspace takes the row lock that does not block the foreign key
// checks of concurrent inserts referencing the workspace (polls saving
// articles), only other lockers.
func (postgres) lockWorkspace() string {
	return `SELECT 1 FROM workspaces WHERE id = ? FOR NO KEY UPDATE`
}

// lexicon: E'…' and $tag$ strings, nested comments. TABLE and SHOW read.
// A read-only transaction still lets a query call server functions that
// act beyond it: take advisory locks (which blocked migrations and every
// command behind them), sleep, signal or end other sessions (the
// daemon's, with its role), reload the configuration, change settings
// (the statement timeout among them), advance sequences, write large
// objects, read server files, reach other databases, or run SQL given as
// text (where no check of names would see it). Those are refused by name.
func (postgres) lexicon() lexicon {
	return lexicon{readKeywords: []string{"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "SHOW"},
		escapeStrings: true, dollarQuotes: true, nestedComments: true,
		deniedNames: postgresDeniedNames, deniedPrefixes: postgresDeniedPrefixes, secretNames: secretTableNames}
}

// postgresDeniedNames and postgresDeniedPrefixes are the server functions
// `feedpoller sql` refuses to call on PostgreSQL (see lexicon).
var (
	postgresDeniedNames = map[string]bool{
		"set_config": true, "nextval": true, "setval": true, "loread": true, "lowrite": true,
		"ts_stat": true, "ts_rewrite": true, "txid_current": true, "pg_current_xact_id": true, "pg_notify": true,
		"pg_reload_conf": true, "pg_rotate_logfile": true, "pg_promote": true, "pg_terminate_backend": true,
		"pg_cancel_backend": true, "pg_log_backend_memory_contexts": true, "pg_export_snapshot": true,
		"pg_import_system_collations": true, "pg_stat_file": true, "pg_prewarm": true, "pg_truncate_visibility_map": true,
		"gin_clean_pending_list": true,
	}
	postgresDeniedPrefixes = []string{
		"pg_advisory_", "pg_try_advisory_", "pg_sleep", "lo_", "dblink", "pg_read_", "pg_ls_", "pg_stat_reset",
		"pg_stat_statements_reset", "pg_replication_", "pg_create_", "pg_drop_", "pg_logical_", "pg_file_", "pg_wal_",
		"pg_xlog_", "pg_switch_", "pg_backup_", "pg_start_backup", "pg_stop_backup", "pg_copy_", "query_to_xml",
		"cursor_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml", "brin_", "binary_upgrade_",
	}
)

func (postgres) explainPrefix() string { return `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ` }

// bookkeepingOnly updates the source and appends its poll_runs row in one
// statement, one round trip: a writable CTE whose INSERT takes the id the
// UPDATE returned, so no poll run is written when the lease was lost. The
// casts type the INSERT's parameters, which no column gives a type in a
// SELECT list.
func (postgres) bookkeepingOnly() string {
	return `WITH u AS (UPDATE feed_sources SET ` + sourceSet + sourceLeased + ` RETURNING id)
		INSERT INTO poll_runs (` + runColumns + `)
		SELECT u.id, ?::timestamptz, ?::timestamptz, ?::text, ?::int, ?::int, ?::int, ?::int, ?::int, ?::bigint, ?::text FROM u`
}

// storyPostings reads, per term, the newest perTerm entries of the term
// index (a LATERAL index range scan with LIMIT). Merged stories are
// looked up in stories_merged_id (merged ones only, migration 0019), not
// in stories. The terms are asked for and answered unsigned; the index
// holds them as INTEGERs (migration 0025, pgSignedTerm).
func (postgres) storyPostings(perTerm int) string {
	return `SELECT k.term, m.feed_article_id, COALESCE(s.merged_into, m.story_id) AS story_id, m.reported_unix
		FROM unnest($2::bigint[]) AS k(term)
		CROSS JOIN LATERAL (SELECT t.feed_article_id, t.story_id, t.reported_unix FROM story_terms t
			WHERE t.workspace_id = $1 AND t.term = ` + pgSignedTerm("k.term") + ` AND t.reported_unix >= $3
			ORDER BY t.reported_unix DESC, t.feed_article_id DESC LIMIT ` + strconv.Itoa(perTerm) + `) AS m
		LEFT JOIN stories s ON s.id = m.story_id AND s.merged_into IS NOT NULL`
}

// storyMembers: a LATERAL index range scan with LIMIT per story; each
// member's terms through story_terms_reported_article (pgTermsOf),
// unsigned and in their unsigned order.
func (postgres) storyMembers(perStory int) string {
	return `SELECT m.id, m.story_id, m.reported_at, m.story_profile,
			array_to_string(ARRAY(SELECT ` + pgUnsignedTerm("t.term") + ` AS u FROM story_terms t WHERE ` + pgTermsOf("t", "m") + ` ORDER BY u), ',') AS terms
		FROM unnest($2::bigint[]) AS k(story)
		CROSS JOIN LATERAL (SELECT a.id, a.story_id, a.reported_at, a.story_profile FROM feed_articles a
			WHERE a.story_id = k.story AND a.reported_at >= $3 AND a.reported_at <= $4 AND +a.workspace_id = $1
			ORDER BY a.reported_at DESC, a.id DESC LIMIT ` + strconv.Itoa(perStory) + `) AS m`
}

// pgTermsOf is the condition that term index entries t are those of the
// article a (feed_articles). The index on (reported_unix,
// feed_article_id) (migration 0023) finds them by their reported time:
// reported_at holds it rounded to microseconds, so its whole seconds are
// the entries' or one more.
func pgTermsOf(t, a string) string {
	sec := `FLOOR(EXTRACT(EPOCH FROM ` + a + `.reported_at))::bigint`
	return t + `.reported_unix BETWEEN ` + sec + ` - 1 AND ` + sec + ` AND ` + t + `.feed_article_id = ` + a + `.id`
}

// pgSignedTerm is the INTEGER that story_terms holds (migration 0025;
// story_doc_freq likewise since 0024, docFreqTerm) for the term of the
// bigint expression x (0 ≤ x < 2^32): the same 32 bits, signed.
func pgSignedTerm(x string) string {
	return `CAST(` + x + ` - ((` + x + ` >> 31) << 32) AS INTEGER)`
}

// pgUnsignedTerm is the term (a bigint, 0 ≤ term < 2^32) of the INTEGER
// expression x that story_terms holds: pgSignedTerm's inverse.
func pgUnsignedTerm(x string) string { return `(CAST(` + x + ` AS BIGINT) & 4294967295)` }

// insertTermRows: one row of array parameters for all the entries, which
// the server parses without a parameter per value; the entries are new
// (their articles were inserted by the save, each entry once), so no
// conflict is checked for. The terms go as the INTEGERs the table holds
// (migration 0025), the same 32 bits as story_doc_freq's (docFreqTerm).
func (d postgres) insertTermRows(workspace int64, rows termRows) (string, []any) {
	terms := make(pq.Int64Array, len(rows.terms))
	for i, t := range rows.terms {
		terms[i] = d.docFreqTerm(uint32(t))
	}
	return `INSERT INTO story_terms (workspace_id, term, reported_unix, feed_article_id, story_id)
		SELECT ?, r.term, r.reported_unix, r.feed_article_id, r.story_id
		FROM unnest(CAST(? AS INTEGER[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[]))
			AS r(term, reported_unix, feed_article_id, story_id)`,
		[]any{workspace, terms, pq.Int64Array(rows.reported), pq.Int64Array(rows.articles), pq.Int64Array(rows.stories)}
}

// moveTerms: the moved articles' entries by their reported time
// (pgTermsOf), through story_terms_reported_article. The workspace is
// sameWorkspace's unary plus: named as it was, the plan cached for the
// statement read the workspace's part of the primary key, every entry of
// the workspace's term index, for each article moved.
func (postgres) moveTerms(cases string) string {
	return `UPDATE story_terms t SET story_id = CASE t.feed_article_id` + cases + ` END
		FROM feed_articles a WHERE +t.workspace_id = ? AND a.id = ANY(CAST(? AS BIGINT[])) AND ` + pgTermsOf("t", "a")
}

// pruneTerms: whole articles (an article's entries share its reported
// time), found and deleted through story_terms_reported_article.
func (postgres) pruneTerms() string {
	return `DELETE FROM story_terms WHERE (reported_unix, feed_article_id) IN
		(SELECT reported_unix, feed_article_id FROM story_terms WHERE reported_unix < ? LIMIT ?)`
}

// pruneDocFreq: across workspaces, through story_doc_freq_period.
func (postgres) pruneDocFreq() string {
	return `DELETE FROM story_doc_freq WHERE (workspace_id, term, period) IN
		(SELECT workspace_id, term, period FROM story_doc_freq WHERE period < ? LIMIT ?)`
}

func (postgres) pruneByWorkspace() bool { return false }

// lockStoryTerms: transaction-scoped shared advisory locks, one per key,
// taken in the order of the sorted array.
func (postgres) lockStoryTerms() string {
	return `SELECT COUNT(pg_advisory_xact_lock_shared(k)) FROM unnest(CAST(? AS BIGINT[])) AS u(k)`
}

// claimStoryTerms: a transaction's own shared lock does not keep it from
// taking the exclusive one.
func (postgres) claimStoryTerms() string {
	return `SELECT k FROM unnest(CAST(? AS BIGINT[])) AS u(k) WHERE NOT pg_try_advisory_xact_lock(k)`
}

// runningTransactions: the lock table (pg_locks) would name the holders
// exactly, but reading it copies every lock of the server, a thousand
// or more while saves run, which cost more than the rest of a rejoin.
// Every transaction of the database that runs now is named instead,
// from pg_stat_activity (a row per session): a few more to wait for,
// each a short one. A session of another role shows no xact_start
// unless the role may read all statistics, so replicas connect as one
// role.
func (postgres) runningTransactions() string {
	return `SELECT pid, CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000 AS BIGINT) AS at FROM pg_stat_activity
		WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid()
		AND backend_type = 'client backend'`
}

// runningOf: as runningTransactions, from pg_stat_activity.
func (postgres) runningOf() string {
	return `SELECT COUNT(*) FROM pg_stat_activity
		WHERE pid = ANY(CAST(? AS BIGINT[])) AND xact_start <= to_timestamp(CAST(? AS BIGINT) / 1e6)`
}

// reserveStoryIDs: nextval hands each caller its own ids, committed or
// not.
func (postgres) reserveStoryIDs(n int, _ int64, _ time.Time) (string, []any) {
	return `SELECT nextval(pg_get_serial_sequence('stories', 'id')) AS id FROM generate_series(1, CAST(? AS INTEGER))`, []any{n}
}

// storyPlaceholders: the references to stories are DEFERRABLE INITIALLY
// DEFERRED (migration 0016).
func (postgres) storyPlaceholders() bool { return false }

func (postgres) int64In(expr string) string { return expr + " = ANY(CAST(? AS BIGINT[]))" }
func (postgres) timeParam() string          { return "CAST(? AS TIMESTAMPTZ)" }

// docFreqWrites: one statement, the upsert (pgDocFreqAdd, or
// pgDocFreqUpsert where the save logs or moves the log). The
// columns are INTEGERs (migration 0024), the terms their bit patterns
// (docFreqTerm). The article count and the tokens of
// the saves (docFreqCheck, storycopy_pgfreq.go) go in the rows of the
// source's shard; tokens are added by exclusive or. When the save logs
// ($6: docFreqLogUnder, docFreqFoldAt) its features' counts go into one
// row of story_doc_freq_log per week instead (migration 0030); when it moves
// the log, the workspace's logged rows are deleted and added to the
// table with its own counts. Rows are written in the order of week, article
// count, token, then term (unsigned), as every save writes them, so
// that two saves never wait for each other's rows in opposite orders.
// The statement answers the transaction's id, by which the copy learns
// whether it holds the save (storycopy_pgfreq.go).
func (postgres) docFreqWrites(ws, shard int64, periods, terms, docs []int64, how docFreqWrite) []statement {
	if how == docFreqToTable {
		return []statement{{pgDocFreqAdd, []any{ws, shard, pq.Int64Array(periods), pq.Int64Array(terms), pq.Int64Array(docs)}}}
	}
	return []statement{{pgDocFreqUpsert, append([]any{ws, shard}, pgDocFreqRows(periods, terms, docs, how == docFreqToLog)...)}}
}

// pgAddDocs is the upserts' conflict clause: counts add up, tokens
// combine by exclusive or.
var pgAddDocs = `ON CONFLICT (workspace_id, term, period, shard) DO UPDATE SET docs = CASE WHEN excluded.term = ` +
	strconv.Itoa(docFreqCheck) + ` THEN story_doc_freq.docs # excluded.docs ELSE story_doc_freq.docs + excluded.docs END`

// pgDocFreqAdd is the upsert of a save that neither logs nor has a log
// to move (docFreqToTable): its rows go in as given, in the order above.
var pgDocFreqAdd = func() string {
	check := strconv.Itoa(docFreqCheck)
	return `WITH added AS (INSERT INTO story_doc_freq (workspace_id, period, term, shard, docs)
		SELECT $1, r.period, r.term, CASE WHEN r.term IN (0, ` + check + `) THEN $2::smallint ELSE 0 END, r.docs
		FROM unnest($3::integer[], $4::integer[], $5::integer[]) AS r(period, term, docs)
		` + pgAddDocs + `)
		SELECT pg_current_xact_id()::text::bigint`
}()

var pgDocFreqUpsert = func() string {
	check := strconv.Itoa(docFreqCheck)
	return `WITH folded AS (DELETE FROM story_doc_freq_log WHERE workspace_id = $1 AND NOT $6 RETURNING period, terms, docs),
		counted AS (SELECT r.period, r.term, r.docs FROM unnest($3::integer[], $4::integer[], $5::integer[]) AS r(period, term, docs)
			UNION ALL SELECT f.period, u.term, u.docs FROM folded f CROSS JOIN LATERAL unnest(f.terms, f.docs) AS u(term, docs)),
		logged AS (INSERT INTO story_doc_freq_log (workspace_id, period, terms, docs)
			SELECT $1, g.period, ($10::integer[])[g.lo:g.hi], ($11::integer[])[g.lo:g.hi]
			FROM unnest($7::integer[], $8::integer[], $9::integer[]) AS g(period, lo, hi)),
		added AS (INSERT INTO story_doc_freq (workspace_id, period, term, shard, docs)
			SELECT $1, c.period, c.term, CASE WHEN c.term IN (0, ` + check + `) THEN $2::smallint ELSE 0 END, SUM(c.docs)::integer
			FROM counted c GROUP BY c.period, c.term
			ORDER BY c.period, c.term <> 0, c.term <> ` + check + `, c.term::bigint & 4294967295
			` + pgAddDocs + `)
		SELECT pg_current_xact_id()::text::bigint`
}()

// pgDocFreqRows is the upsert's rows: when the save logs, the table's
// rows are the article counts and tokens alone, and the features'
// counts follow as one list with the bounds (from 1, inclusive) of each
// week's part, the terms of a week ascending (unsigned); else every row
// is the table's.
func pgDocFreqRows(periods, terms, docs []int64, logged bool) []any {
	var weeks, lo, hi, logTerms, logDocs []int64
	if logged {
		type entry struct{ term, docs int64 }
		byWeek := map[int64][]entry{}
		var tp, tt, td []int64
		for i, t := range terms {
			if t == docFreqAll || t == docFreqCheck {
				tp, tt, td = append(tp, periods[i]), append(tt, t), append(td, docs[i])
				continue
			}
			byWeek[periods[i]] = append(byWeek[periods[i]], entry{t, docs[i]})
		}
		periods, terms, docs = tp, tt, td
		weeks = slices.Sorted(maps.Keys(byWeek))
		for _, w := range weeks {
			es := byWeek[w]
			slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(uint32(a.term), uint32(b.term)) })
			lo = append(lo, int64(len(logTerms))+1)
			for _, e := range es {
				logTerms, logDocs = append(logTerms, e.term), append(logDocs, e.docs)
			}
			hi = append(hi, int64(len(logTerms)))
		}
	}
	return []any{pq.Int64Array(periods), pq.Int64Array(terms), pq.Int64Array(docs), logged,
		pq.Int64Array(weeks), pq.Int64Array(lo), pq.Int64Array(hi), pq.Int64Array(logTerms), pq.Int64Array(logDocs)}
}

// docFreqRead: an aggregate per term, over an index range scan of its
// weeks. Given the list with "term = ANY", the planner priced thousands
// of index descents above one pass over every row of the workspace's
// recent weeks, and chose that pass: in one workspace of 30 000 news
// articles (250 000 rows) it read them all for every poll, 0.2–0.5 s of
// statement time a poll. A workspace whose features are all logged has
// no row in the table but its article counts and tokens: two looks along
// the primary key (the terms below 0 and above it, the tokens' term
// aside) find that, and spare the descents. Then the logged
// counts of the workspace's weeks (story_doc_freq_log: a small
// workspace's few rows, or what a big one's saves logged since the log
// was last moved, docFreqFoldAt counts at most a process), the terms
// asked for found by hashing them; a term counted in both comes in two
// rows.
func (postgres) docFreqRead() string {
	return `SELECT k.term, s.docs FROM unnest($3::integer[]) AS k(term)
		CROSS JOIN LATERAL (SELECT SUM(d.docs) AS docs FROM story_doc_freq d
			WHERE d.workspace_id = $1 AND d.term = k.term AND d.period >= $2) AS s
		WHERE s.docs IS NOT NULL AND (k.term = 0 OR EXISTS (SELECT FROM story_doc_freq f WHERE f.workspace_id = $1 AND f.term < 0)
			OR EXISTS (SELECT FROM story_doc_freq f WHERE f.workspace_id = $1 AND f.term > 0 AND f.term <> ` + strconv.Itoa(docFreqCheck) + `))
		UNION ALL SELECT u.term, SUM(u.docs) FROM story_doc_freq_log l CROSS JOIN LATERAL unnest(l.terms, l.docs) AS u(term, docs)
		WHERE l.workspace_id = $1 AND l.period >= $2 AND u.term IN (SELECT unnest($3::integer[])) GROUP BY u.term`
}

// docFreqLogRead: docFreqRead reads the log too.
func (postgres) docFreqLogRead() string { return "" }

// pruneDocFreqLog: across workspaces; the log keeps a row per save and
// week of small workspaces, and of big ones until it is moved
// (docFreqFoldAt), and a prune reads it whole.
func (postgres) pruneDocFreqLog() string {
	return `DELETE FROM story_doc_freq_log WHERE (workspace_id, period, id) IN
		(SELECT workspace_id, period, id FROM story_doc_freq_log WHERE period < ? LIMIT ?)`
}

// storyCopies: replicas save at once; each save reads the tables, but
// for the document frequencies of big workspaces (freqCopies).
func (postgres) storyCopies() *storyCopies { return nil }

// freqCopies: checked against the article counts and tokens of the
// table, which replicas' saves all write (storycopy_pgfreq.go).
func (postgres) freqCopies() *pgFreqCopies { return newPGFreqCopies() }

// docFreqTerm: story_doc_freq.term is an INTEGER (migration 0024), which
// holds a term's 32 bits as a signed number.
func (postgres) docFreqTerm(t uint32) int64 { return int64(int32(t)) }

// int64List: a bigint[] parameter.
func (postgres) int64List(keys []int64) any { return pq.Int64Array(keys) }

func (postgres) daysBetween(from, to string) string {
	return "(EXTRACT(EPOCH FROM (CAST(" + to + " AS TIMESTAMPTZ) - " + from + ")) / 86400.0)"
}
func (postgres) greatest(a, b string) string { return "GREATEST(" + a + ", " + b + ")" }
func (postgres) least(a, b string) string    { return "LEAST(" + a + ", " + b + ")" }
