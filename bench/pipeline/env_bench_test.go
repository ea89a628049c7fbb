package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/bench/internal/pgcluster"
	"github.com/feedpoller/feedpoller/bench/internal/rtproxy"
	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// The cluster is started by the first benchmark or test that needs
// PostgreSQL, never by a run that does not, and stopped by TestMain.
var (
	clusterOnce sync.Once
	cluster     *pgcluster.Cluster
	clusterErr  error
	dbSeq       atomic.Int64
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	os.Exit(code)
}

func needCluster(tb testing.TB) *pgcluster.Cluster {
	tb.Helper()
	clusterOnce.Do(func() { cluster, clusterErr = pgcluster.Start(context.Background()) })
	if clusterErr != nil {
		tb.Skipf("PostgreSQL not available: %v", clusterErr)
	}
	return cluster
}

// benchDB is a migrated database of one dialect. On PostgreSQL the store
// talks through a round-trip-counting proxy and pg_stat_statements is
// loaded; direct is a connection that bypasses the proxy, for setup and
// clean-up that must not be counted.
type benchDB struct {
	dialect string
	store   *store.Store
	direct  *sql.DB
	proxy   *rtproxy.Proxy // nil on SQLite
}

// pgTextParameters is a PostgreSQL database whose store connects with
// binary_parameters=no, lib/pq's default, which store.Open otherwise turns
// on: the round trips a statement took before that change (two per
// parameterised statement instead of one).
const pgTextParameters = "postgres+binary_parameters=no"

// pgNoSearchVectors is a PostgreSQL database whose store saves articles
// without their search vectors (store.Options.NoSearchVectors): the save
// path without the full-text index, once its GIN index is dropped too.
const pgNoSearchVectors = "postgres+no_search_vectors"

func openDB(tb testing.TB, dialect string) *benchDB {
	tb.Helper()
	ctx := context.Background()
	textParameters, noVectors := dialect == pgTextParameters, dialect == pgNoSearchVectors
	if textParameters || noVectors {
		dialect = store.Postgres
	}
	d := &benchDB{dialect: dialect}
	var storeURL, directURL string
	switch dialect {
	case store.SQLite:
		storeURL = "sqlite:" + filepath.Join(tb.TempDir(), "bench.db")
	case store.Postgres:
		c := needCluster(tb)
		u, err := c.CreateDatabase(ctx, fmt.Sprintf("bench_%d_%d", os.Getpid(), dbSeq.Add(1)), true)
		if err != nil {
			tb.Fatal(err)
		}
		directURL = u
		p, err := rtproxy.Start(fmt.Sprintf("127.0.0.1:%d", c.Port()))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { p.Close() })
		d.proxy = p
		storeURL = strings.Replace(u, fmt.Sprintf("127.0.0.1:%d", c.Port()), p.Addr(), 1)
		if textParameters {
			storeURL += "&binary_parameters=no"
		}
	}
	st, err := store.OpenWith(ctx, storeURL, store.Options{DeliveryPayload: webhooks.DeliveryPayload, NoSearchVectors: noVectors})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	d.store = st
	// The set-up writes stand for the daemon's own between saves (a
	// poll's claim of its source): on SQLite they go where the daemon's
	// go, the writing transactions' connection, whose page cache another
	// connection's write would make it drop.
	d.direct = st.WriterDB().DB
	if directURL != "" {
		db, err := sql.Open("postgres", directURL)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		d.direct = db
	}
	return d
}

// exec runs clean-up SQL outside the counted path.
func (d *benchDB) exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if d.dialect == store.Postgres {
		query = rebindDollar(query)
	}
	if _, err := d.direct.Exec(query, args...); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
}

func rebindDollar(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// statements is how many statements the benchmark database has executed
// (pg_stat_statements, BEGIN and COMMIT included), not counting the
// queries that read the view itself, nor the foreign key checks the
// server runs itself: one per row that references a story, as before
// migration 0016, but at commit, where pg_stat_statements lists them
// with the statements sent, rather than inside the INSERT. -1 on SQLite.
func (d *benchDB) statements(tb testing.TB) int64 {
	tb.Helper()
	if d.dialect != store.Postgres {
		return -1
	}
	return int64(d.statStatements(tb, "calls", `AND query NOT LIKE 'SELECT _% FROM ONLY %'`))
}

// statStatements sums a column of pg_stat_statements over the benchmark
// database's statements, leaving out the queries that read the view and
// the benchmark's own setup, and those the conditions leave out.
func (d *benchDB) statStatements(tb testing.TB, column string, conditions ...string) float64 {
	tb.Helper()
	var v sql.NullFloat64
	err := d.direct.QueryRow(`SELECT sum(` + column + `)::float8 FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%bench-setup%' ` + strings.Join(conditions, " ")).Scan(&v)
	if err != nil {
		tb.Fatalf("read pg_stat_statements: %v", err)
	}
	return v.Float64
}

func (d *benchDB) roundTrips() int64 {
	if d.proxy == nil {
		return -1
	}
	return d.proxy.RoundTrips()
}

// cpuTime is the CPU this process has used (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// farmFeed renders one feed of a default feed farm (20 items, ~2 KB of
// HTML each) as served to a reader at base.
func farmFeed(tb testing.TB, format feedfarm.Format, items int) []byte {
	tb.Helper()
	f := feedfarm.New(feedfarm.Options{Feeds: 1, ItemsPerFeed: items, Format: format, Seed: 1, Text: farmText(tb)})
	req := httptest.NewRequest(http.MethodGet, "http://farm.test/feed/0.xml", nil)
	rec := httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("farm answered %d", rec.Code)
	}
	return rec.Body.Bytes()
}

// EnvText names the farm's text model of the benchmarks that poll a farm
// feed: uniform (the default, what the figures before it were measured
// on) or news, whose English-sized vocabulary costs the text features and
// the full-text index more.
const EnvText = "FEEDPOLLER_BENCH_TEXT"

// farmText is the text model EnvText names.
func farmText(tb testing.TB) feedfarm.Text {
	tb.Helper()
	v := os.Getenv(EnvText)
	if v == "" {
		return feedfarm.TextUniform
	}
	t, err := feedfarm.ParseText(v)
	if err != nil {
		tb.Fatalf("%s: %v", EnvText, err)
	}
	return t
}

// staticFeed serves fixed bytes with an ETag and answers a matching
// If-None-Match with 304: the farm's bytes without the farm's rendering
// cost, so the pipeline is not charged for the server's work.
func staticFeed(tb testing.TB, body []byte, contentType string) *httptest.Server {
	tb.Helper()
	const etag = `"static-1"`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// benchProfile is a workspace profile that some farm items pass.
func benchProfile() model.RelevanceProfile {
	return model.RelevanceProfile{Threshold: 0.2, Exclusions: []string{"sponsored"}, Keywords: []model.Keyword{
		{Term: "energy", Weight: 2}, {Term: "climate", Weight: 2}, {Term: "solar", Weight: 1},
		{Term: "battery", Weight: 1}, {Term: "security", Weight: 1}, {Term: "software release", Weight: 2},
		{Term: "carbon", Weight: 1}, {Term: "grid", Weight: 1},
	}}
}
