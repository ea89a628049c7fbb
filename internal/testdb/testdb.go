// Package testdb gives tests a real database: a fresh SQLite file, or a
// fresh database on a throwaway PostgreSQL cluster started from the local
// server binaries (or on FEEDPOLLER_TEST_POSTGRES_URL when set).
package testdb

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/lib/pq" // PostgreSQL driver
)

// EnvURL names a server to use instead of starting a cluster; its user must
// be allowed to create databases.
const EnvURL = "FEEDPOLLER_TEST_POSTGRES_URL"

// Dialects lists the databases every storage test runs on.
var Dialects = []string{"sqlite", "postgres"}

// URL returns a database URL for a new, empty database of the dialect,
// dropped (or deleted) when the test ends.
func URL(t testing.TB, dialect string) string {
	t.Helper()
	switch dialect {
	case "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "feedpoller.db")
	case "postgres":
		return postgresURL(t)
	}
	t.Fatalf("testdb: unknown dialect %q", dialect)
	return ""
}

var (
	clusterOnce sync.Once
	clusterURL  string // server URL without database name
	clusterErr  error
	clusterStop func()
	dbSeq       atomic.Int64
)

// Main runs a package's tests and then stops the cluster they started, so
// no server outlives the test binary. Use it from TestMain:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit, for a TestMain with more to undo after
// the tests: it returns their exit code.
func Run(m *testing.M) int {
	code := m.Run()
	if clusterStop != nil {
		clusterStop()
	}
	return code
}

func postgresURL(t testing.TB) string {
	t.Helper()
	clusterOnce.Do(func() {
		if u := os.Getenv(EnvURL); u != "" {
			clusterURL = u
			return
		}
		clusterURL, clusterStop, clusterErr = startCluster()
	})
	if clusterErr != nil {
		Unavailable(t, clusterErr)
	}
	name := fmt.Sprintf("fp_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, dbSeq.Add(1))
	admin, err := sql.Open("postgres", clusterURL)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("testdb: create database: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("postgres", clusterURL)
		if err != nil {
			return
		}
		defer a.Close()
		if _, err := a.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			t.Logf("testdb: drop database %s: %v", name, err) // the cluster goes away with the test binary anyway
		}
	})
	return withDatabase(clusterURL, name)
}

// Unavailable ends a test that needs PostgreSQL when none can be had
// (err says why): `go test -short` skips it, saying so, so the quick
// suite runs on a machine without PostgreSQL; the full suite
// (./scripts/test.sh) fails it, so a missing server never passes for a
// green run.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if testing.Short() {
		t.Skipf("PostgreSQL is not available (%v): skipped in -short mode; ./scripts/test.sh runs this test", err)
	}
	t.Fatalf("testdb: PostgreSQL is needed for this test: %v", err)
}

func withDatabase(serverURL, name string) string {
	base, query, _ := strings.Cut(serverURL, "?")
	if i := strings.Index(base, "://"); i >= 0 {
		if j := strings.Index(base[i+3:], "/"); j >= 0 {
			base = base[:i+3+j]
		}
	}
	u := base + "/" + name
	if query != "" {
		u += "?" + query
	}
	return u
}

// BinDir finds the PostgreSQL server binaries.
func BinDir() (string, error) {
	if d := os.Getenv("FEEDPOLLER_PG_BIN"); d != "" {
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		// A link on the PATH (Debian links only the server's programs)
		// leads to the directory that holds the client programs too.
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries found (install them: apt-get install -y postgresql)")
}

func versionOf(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// startCluster starts a throwaway cluster (see Cluster) for the whole
// test binary; stop shuts it down and removes its files.
func startCluster() (u string, stop func(), err error) {
	c, err := StartCluster()
	if err != nil {
		return "", nil, err
	}
	return c.URL(""), func() { _ = c.Close() }, nil // the test binary is ending: a cluster that will not stop is killed with it (Pdeathsig)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
