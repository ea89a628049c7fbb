// Package store holds every SQL statement of feedpoller, for PostgreSQL
// (lib/pq) and the embedded SQLite default (modernc.org/sqlite, pure Go).
//
// Where to look:
//
//   - save.go: SavePoll, the one transaction that stores a poll. It calls,
//     in order, bookkeeping.go (the source row, which proves the lease),
//     articles.go (feed_articles, URL dedup's race guard), promote.go
//     (content_items, content-hash dedup), and bookkeeping.go again (the
//     poll_runs row).
//   - dedup.go: which of a poll's items are already stored.
//   - sources.go, workspaces.go, tokens.go, listing.go: the API's reads
//     and writes; claiming due sources is in sources.go.
//   - dialect.go: what differs between the two databases; postgres.go and
//     sqlite.go: each one's statements, settings and quirks.
//   - query.go (refused) and the dberr package: database errors told apart
//     by SQLSTATE and SQLite result code.
//   - text.go: making text storable (NUL bytes, invalid UTF-8, cutting on
//     a rune boundary).
//   - readonly.go and sqlcheck.go: the read-only connection of
//     `feedpoller sql`.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/lexemes"
	"github.com/feedpoller/feedpoller/store/migrations"
)

// Dialects.
const (
	Postgres = "postgres"
	SQLite   = "sqlite"
)

// DefaultSQLitePath is where the embedded database lives when no URL is
// configured.
const DefaultSQLitePath = "data/feedpoller.db"

// Store is the database of one daemon.
type Store struct {
	db *sqlx.DB
	// writer runs the transactions that write and the claims and
	// releases of sources, the other writes of every poll: db itself on
	// PostgreSQL; on SQLite a pool of one connection, so that each save
	// finds the pages the one before it read still in that connection's
	// cache (a SQLite connection drops its cache whenever another one has
	// changed the file).
	writer *sqlx.DB
	d      dialect
	writes writeHealth
	// payload builds the webhook deliveries a save queues.
	payload model.DeliveryPayload
	search  searchGuard
	// searchExamined counts the bytes of text search snippets were
	// built from, for the tests that bound a search's work.
	searchExamined atomic.Int64
	// noSearchVectors: Options.NoSearchVectors.
	noSearchVectors bool
	// lexicon remembers the lexemes of the words of the articles saved,
	// for their search vectors (search_vector.go).
	lexicon *lexemes.Lexicon
	// binaryVectors: the connections send []byte parameters in binary
	// (PostgreSQL with binary_parameters), so search vectors go in the
	// server's binary format.
	binaryVectors bool
	// copies is the copy of the story index saves read (SQLite; nil on
	// PostgreSQL): storycopy.go.
	copies *storyCopies
	// pgFreq is the copy of big workspaces' document frequencies saves
	// read, checked against the table (PostgreSQL; nil on SQLite):
	// storycopy_pgfreq.go.
	pgFreq *pgFreqCopies
	// docFreqLogUnder: a save logs its features' counts while its
	// workspace counts fewer articles than this (docFreqLogUnder; the
	// tests of the table set it to 0); docFreqFoldAt: how many feature
	// counts a save of a bigger workspace may log before one moves the
	// log into the table (docFreqFoldAt; 0: none, each goes to the table).
	docFreqLogUnder int
	docFreqFoldAt   int
	logMoves        logMoves
}

// Options tunes the connection pool and gives the store what it writes
// without deciding it.
type Options struct {
	// MaxOpenConns caps the connections to the database; 0 keeps the
	// default: 20 on PostgreSQL, 4 on SQLite, whose writing
	// transactions have one more connection of their own (see writer).
	MaxOpenConns int
	// MaxIdleConns is how many connections stay open while idle; 0 means
	// as many as MaxOpenConns, so a busy daemon never closes a connection
	// it needs again a moment later (every PostgreSQL session opened costs
	// a backend process and an authentication round).
	MaxIdleConns int
	// StatementCache is how many prepared statements each connection
	// keeps for reuse, by SQL text: 0 keeps the default
	// (DefaultSQLiteStatements, DefaultPostgresStatements), a negative
	// number none (for a PostgreSQL pooler that cannot hold a session's
	// prepared statements).
	StatementCache int
	// DeliveryPayload builds the webhook deliveries a save queues for its
	// promotions (webhooks.Payload). nil: a save that has a delivery to
	// queue fails and keeps nothing, rather than lose the delivery.
	DeliveryPayload model.DeliveryPayload
	// SearchTimeout is the deadline of one full-text search (Search, and
	// the listings' q=); 0 means DefaultSearchTimeout.
	SearchTimeout time.Duration
	// NoSearchVectors saves articles without a search vector on
	// PostgreSQL, so that search finds none of them: for the benchmark
	// that measures what the full-text index costs a save, and nothing
	// else.
	NoSearchVectors bool
}

// Open connects to databaseURL with the default pool: see OpenWith.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	return OpenWith(ctx, databaseURL, Options{})
}

// OpenWith connects to databaseURL: empty → the SQLite file under ./data/;
// postgres:// or postgresql:// → PostgreSQL; sqlite:PATH, file:PATH or a
// plain path → that SQLite file (see ParseURL).
func OpenWith(ctx context.Context, databaseURL string, opts Options) (*Store, error) {
	name, dsn, err := ParseURL(databaseURL)
	if err != nil {
		return nil, err
	}
	d := dialectNamed(name)
	db, writer, maxOpen, err := d.openPool(dsn, opts)
	if err != nil {
		return nil, fmt.Errorf("open %s database %s: %w", name, RedactURL(databaseURL), err)
	}
	maxIdle := opts.MaxIdleConns
	if maxIdle <= 0 || maxIdle > maxOpen {
		maxIdle = maxOpen
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxIdle)
	if err := connect(ctx, db, name, databaseURL, ""); err != nil {
		if writer != nil {
			_ = writer.Close() // it opened no connection yet
		}
		return nil, err
	}
	if writer == nil {
		writer = db
	}
	return &Store{db: db, writer: writer, d: d, payload: opts.DeliveryPayload, search: newSearchGuard(opts.SearchTimeout, maxOpen),
		noSearchVectors: opts.NoSearchVectors, lexicon: lexemes.NewLexicon(lexiconWords),
		binaryVectors: name == Postgres && binaryParameters(dsn), copies: d.storyCopies(), pgFreq: d.freqCopies(),
		docFreqLogUnder: docFreqLogUnder, docFreqFoldAt: docFreqFoldAt}, nil
}

// connect checks that db answers, closing it when it does not; how (for
// example " read-only") goes into the error, the URL without its password.
func connect(ctx context.Context, db *sqlx.DB, dialect, databaseURL, how string) error {
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close() // the ping's error is the one to report
		return fmt.Errorf("connect to %s database %s%s: %w", dialect, RedactURL(databaseURL), how, err)
	}
	return nil
}

// PoolStats reports the pool's limits and use, for the daemon's start-up
// log and tests.
func (s *Store) PoolStats() sql.DBStats { return s.db.Stats() }

// Dialect is "postgres" or "sqlite".
func (s *Store) Dialect() string { return s.d.name() }

// DB exposes the connection pool to tests and benchmarks.
func (s *Store) DB() *sqlx.DB { return s.db }

// WriterDB exposes the pool of the writing transactions to tests and
// benchmarks: on SQLite one connection of its own, on PostgreSQL DB.
func (s *Store) WriterDB() *sqlx.DB { return s.writer }

// Close releases the connection pools.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.writer != s.db {
		err = errors.Join(err, s.writer.Close())
	}
	return err
}

// Migrate applies pending migrations and returns the versions applied.
func (s *Store) Migrate(ctx context.Context) ([]int, error) {
	return migrations.Apply(ctx, s.db, s.d.name())
}

// poolWait is how long readiness waits for a connection of the pool
// before it reports the pool exhausted.
const poolWait = time.Second

// Ready reports whether the database answers, the pool has a connection
// to give within poolWait (a pool whose every connection stays busy
// answers no request, however healthy the database), and the schema is
// current.
func (s *Store) Ready(ctx context.Context) error {
	wait, cancel := context.WithTimeout(ctx, poolWait)
	conn, err := s.db.Conn(wait)
	cancel()
	if err != nil {
		if st := s.db.Stats(); ctx.Err() == nil && st.MaxOpenConnections > 0 && st.InUse >= st.MaxOpenConnections {
			return fmt.Errorf("connection pool exhausted: all %d connections stayed busy for %s (%d waits for a connection since start)",
				st.MaxOpenConnections, poolWait, st.WaitCount)
		}
		return fmt.Errorf("database unreachable: %w", err)
	}
	err = conn.PingContext(ctx)
	_ = conn.Close() // back to the pool; a failed ping is the error to report
	if err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	cur, err := migrations.Current(ctx, s.db)
	if err != nil {
		return err
	}
	latest, err := migrations.Latest(s.d.name())
	if err != nil {
		return err
	}
	if cur < latest {
		return fmt.Errorf("database schema at version %d, binary needs %d: run `feedpoller migrate`", cur, latest)
	}
	return nil
}

// q rebinds a query written with ? placeholders to the dialect.
func (s *Store) q(query string) string { return s.db.Rebind(query) }

// now is the one clock of the store, in UTC, to the millisecond: what
// SQLite stores of a time (see msConnector), so a value the store hands
// back equals the one it wrote.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// asTime wraps a timestamp column or parameter for comparing and ordering
// in the dialect's way (see sqliteDialect.asTime).
func (s *Store) asTime(expr string) string { return s.d.asTime(expr) }
