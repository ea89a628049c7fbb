package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/store/textquery"
)

// dialect declares everything the two databases do differently, so that
// the rest of the store is written once, with ? placeholders (see q).
// Each database's statements and quirks live in one file: postgres.go and
// sqlite.go. A statement that differs between them is a method here, not
// a branch where it is used.
type dialect interface {
	// name is Postgres or SQLite, as Store.Dialect reports it.
	name() string

	// openPool opens the daemon's connection pool on dsn with the
	// dialect's driver settings, tuned by opts; MaxOpenConns 0 takes the
	// dialect's default pool size, which it returns. writer is the pool
	// of writing transactions when they need one of their own (see
	// Store.writer); nil when they take db's connections.
	openPool(dsn string, opts Options) (db, writer *sqlx.DB, poolSize int, err error)
	// openReadOnly opens the connection of `feedpoller sql`, read-only by
	// the driver's and the server's own settings (see ReadOnly), its
	// statements bounded by timeout where the server can do it.
	openReadOnly(dsn string, timeout time.Duration) (*sqlx.DB, error)
	// queryReadOnly runs query on a connection opened by openReadOnly,
	// under the dialect's further read-only guards; done releases what
	// it took once rows are closed.
	queryReadOnly(ctx context.Context, conn *sql.Conn, query string) (rows *sql.Rows, done func(), err error)

	// asTime wraps a timestamp column or parameter for comparing and
	// ordering.
	asTime(expr string) string
	// dueCondition is "due at the time in param", stated exactly as the
	// partial index feed_sources_due is, so the planner reads the index.
	dueCondition(param string) string
	// activeCondition is "the source is active", written as the
	// dialect's partial indexes write it.
	activeCondition() string
	// unhealthyCondition is the WHERE of the partial index
	// feed_sources_unhealthy, word for word.
	unhealthyCondition() string
	// claimDue is ClaimDue's statement. Its parameters, by number: the
	// end of the lease, the owner, now, the most sources to claim.
	claimDue() string
	// claimDeliveries is Outbox.ClaimDue's statement: it leases due
	// webhook deliveries and returns them with their webhook's url and
	// secret. Its parameters, by number: the owner, the end of the lease,
	// now, the most rows to claim.
	claimDeliveries() string
	// secretTable is the name, as statements write it, of a table that
	// holds secrets (webhook_secrets, websub_secrets): on PostgreSQL it is
	// in the schema feedpoller_secrets, which no reporting role may use.
	secretTable(name string) string
	// lockWorkspace is a SELECT of the workspace with parameter id that
	// holds it until the transaction ends, so that counting its rows and
	// inserting one cannot interleave with another transaction doing the
	// same.
	lockWorkspace() string
	// forUpdate ends a SELECT so that it locks the rows it reads until
	// the transaction ends ("" where transactions hold the write lock
	// from their start).
	forUpdate() string
	// explainPrefix turns a statement into one that returns its plan.
	explainPrefix() string
	// lexicon is how checkReadQuery reads the dialect's SQL text.
	lexicon() lexicon
	// bookkeepingOnly is one statement that records a poll which stored
	// no article (a 304): the source's bookkeeping and its poll_runs row,
	// with the parameters of sourceArgs then runArgs. "" when the
	// dialect has none; SavePoll then uses a transaction.
	bookkeepingOnly() string

	// storyPostings is StoryPostings' statement. Its parameters: the
	// workspace, the terms (as int64List gives them), the earliest
	// reported_unix. It answers (term, feed_article_id, story_id,
	// reported_unix) rows, story_id followed through merged_into: per
	// term at least the perTerm newest (ties: the higher article id),
	// more only where entries tie on the last reported_unix.
	storyPostings(perTerm int) string
	// storyMembers is StoryMembers' statement. Its parameters: the
	// workspace, the stories (as int64List gives them), the earliest and
	// the latest reported_at. It answers (id, story_id, reported_at,
	// story_profile, terms) rows, terms the article's term index entries
	// as a comma-separated list: per story at least the perStory latest
	// reported, more only where articles tie on the last time, through
	// the (story_id, reported_at) index.
	storyMembers(perStory int) string
	// insertTermRows is the statement, and its arguments, that files rows
	// in the term index of workspace.
	insertTermRows(workspace int64, rows termRows) (string, []any)
	// moveTerms is the statement that sets the story of the term index
	// entries of moved articles: its parameters are those of cases (CASE
	// feed_article_id cases END gives an entry's new story), the
	// workspace, and the articles (int64List).
	moveTerms(cases string) string
	// pruneTerms is the statement that deletes the term index entries of
	// a batch of articles reported before a time: its parameters are the
	// workspace when pruneByWorkspace, the time in Unix seconds, and how
	// many entries to start from.
	pruneTerms() string
	// pruneDocFreq is the statement that deletes a batch of document
	// frequencies of the weeks before a period: its parameters are the
	// workspace when pruneByWorkspace, the period, and how many rows.
	pruneDocFreq() string
	// pruneDocFreqLog is pruneDocFreq for story_doc_freq_log.
	pruneDocFreqLog() string
	// pruneByWorkspace reports whether the prune statements take one
	// workspace at a time: where the tables have no index on the time
	// alone, they find a workspace's old rows along the primary key.
	pruneByWorkspace() bool
	// lockStoryTerms is a statement that holds, until the transaction
	// ends, a shared lock on each of the keys (workspace << 32 | term) of
	// its list parameter, taken in the list's order; "" where
	// transactions hold the write lock from their start (then so are
	// the three statements below).
	lockStoryTerms() string
	// claimStoryTerms is a statement that takes, without waiting, an
	// exclusive lock on each key of its list parameter, held until the
	// transaction ends, and answers the keys (k) it could not take:
	// those another transaction holds.
	claimStoryTerms() string
	// runningTransactions is a statement that answers (pid, at) other
	// transactions running now, among them every one that holds a lock
	// on story terms: the backend each runs in, and when (microseconds
	// of the Unix time) it was asked, the same in every row.
	runningTransactions() string
	// runningOf is a statement that answers how many of the backends of
	// its list parameter still run a transaction started at or before
	// its second parameter (runningTransactions' at).
	runningOf() string
	// reserveStoryIDs is a statement and its arguments that answer (id)
	// rows: n unused story ids, which no other transaction will take, so
	// a save can write them into its articles before it writes the
	// stories. Where storyPlaceholders, it takes them by inserting a
	// placeholder row of workspace under each (no article, at as its
	// times), which insertStories writes whole or deletes.
	reserveStoryIDs(n int, workspace int64, at time.Time) (string, []any)
	// storyPlaceholders: the references to stories are checked at each
	// statement, so a story's row must exist before its articles are
	// inserted; where they are checked at commit (declared deferred),
	// the ids alone are reserved and the rows written at the end.
	storyPlaceholders() bool
	// int64List is a list of keys as storyPostings and int64In take it.
	int64List(keys []int64) any
	// int64In is the condition "expr is one of the list parameter" (a
	// ? placeholder, int64List's form).
	int64In(expr string) string
	// timeParam is a timestamp parameter where its type is not otherwise
	// known (inside CASE).
	timeParam() string
	// knownArticles is the statement, and its arguments, that finds which
	// of a poll's URLs a workspace already has and which of its GUIDs the
	// source already yielded (KnownArticles): every row of either.
	knownArticles(workspaceID, sourceID int64, urls, guids []string) (string, []any, error)
	// docFreqWrites is the statements, with their arguments, that add a
	// save's counts (rows of period, term and docs) to workspace ws's
	// document frequencies, its article counts (term 0) to the rows of
	// shard (docFreqShard), as how says. Where the dialect keeps a copy
	// checked against the table (freqCopies), the last statement answers
	// the transaction's id.
	docFreqWrites(ws, shard int64, periods, terms, docs []int64, how docFreqWrite) []statement
	// docFreqRead is the statement that reads a workspace's document
	// frequencies (parameters: workspace, first period, the terms as an
	// int64List of docFreqTerm values): one (term, docs) row per term
	// that has a count. It looks each term up by the primary key, so that
	// its cost follows the terms asked for, never how many terms the
	// workspace has counted.
	docFreqRead() string
	// docFreqLogRead is the statement, "" where docFreqRead reads them,
	// of the logged counts of a workspace from a period on (parameters:
	// workspace, first period): each row's period and its list of terms,
	// a term once per article that has it, each as its difference from
	// the one before (loggedDocFreq, loggedCounts).
	docFreqLogRead() string
	// freqCopies is the copy of the document frequencies checked
	// against the table that saves read (nil: none, or the story
	// index's copy, storyCopies, holds them).
	freqCopies() *pgFreqCopies
	// docFreqTerm is a term as story_doc_freq holds it (and as
	// docFreqRows and a read take it); uint32 of what is read back is
	// the term.
	docFreqTerm(t uint32) int64
	// storyCopies is the copy of the story index a store of the dialect
	// keeps for its saves, or nil: they read the tables.
	storyCopies() *storyCopies
	// daysBetween is the days from the timestamp expression from to the
	// timestamp parameter to, as a real number.
	daysBetween(from, to string) string
	// greatest and least are the larger and smaller of two numbers.
	greatest(a, b string) string
	least(a, b string) string
	// textMatch is the condition "the feed article art matches q",
	// through the full-text index, and its parameters (search_*.go).
	textMatch(art string, q textquery.Query) (string, []any)
	// searchVectorColumn is the column of feed_articles that its INSERT
	// fills with the search vector the store computes (search_vector.go),
	// "" when the database tokenises the text itself.
	searchVectorColumn() string
	// search is Search's statement (search_*.go): the articles of the
	// workspace matching q and where (a condition on feed_articles a, with
	// whereArgs, the workspace's included; filtered when it says more than
	// the workspace), best first, at most limit.
	search(q textquery.Query, workspaceID int64, where string, whereArgs []any, filtered bool, limit int) (string, []any)
}

// lexicon is what a dialect's SQL text differs in for checkReadQuery,
// which must find statement boundaries exactly where the database does.
// docFreqWrite is where a save's feature counts go (docFreqWrites).
type docFreqWrite int

const (
	// docFreqToTable adds them to story_doc_freq.
	docFreqToTable docFreqWrite = iota
	// docFreqMoveLog adds them to story_doc_freq with the workspace's
	// logged rows, which it deletes. Where the dialect reads its log apart
	// (docFreqLogRead), the store has added the logged counts to the
	// save's rows already (loggedCounts), and the statements only delete
	// the log.
	docFreqMoveLog
	// docFreqToLog logs them in story_doc_freq_log (docFreqLogUnder).
	docFreqToLog
)

// statement is a statement with its arguments.
type statement struct {
	query string
	args  []any
}

type lexicon struct {
	// readKeywords are the statements a read-only query may start with.
	readKeywords []string
	// escapeStrings: E'…' strings, in which a backslash escapes the next
	// byte, a quote included.
	escapeStrings bool
	// dollarQuotes: $tag$ … $tag$ strings.
	dollarQuotes bool
	// nestedComments: /* /* */ */ is one comment.
	nestedComments bool
	// backtickIdents, bracketIdents: `x` and [x] quote identifiers.
	backtickIdents, bracketIdents bool
	// deniedNames and deniedPrefixes are the functions (lower case) a
	// query may not name, exactly or by prefix: those with side effects
	// beyond the query's result.
	deniedNames    map[string]bool
	deniedPrefixes []string
	// secretNames are the tables (and schema) of secrets, which the query
	// may not name.
	secretNames map[string]bool
}

// dialectNamed returns the dialect ParseURL named.
func dialectNamed(name string) dialect {
	if name == Postgres {
		return postgres{}
	}
	return sqliteDialect{}
}
