package testdb

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// childEnv marks the run of this package's test binary by
// TestShortRunsWithoutPostgreSQL.
const childEnv = "FEEDPOLLER_TESTDB_CHILD"

// TestNeedsPostgreSQL is what any test on PostgreSQL does first; it runs
// only as the child of TestShortRunsWithoutPostgreSQL.
func TestNeedsPostgreSQL(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestShortRunsWithoutPostgreSQL")
	}
	URL(t, "postgres")
	NewCluster(t)
	t.Log("reached the end")
}

// TestShortRunsWithoutPostgreSQL: on a machine without PostgreSQL server
// binaries, `go test -short` skips the tests that need them and says why,
// while the full run fails them rather than passing without PostgreSQL.
func TestShortRunsWithoutPostgreSQL(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child runs TestNeedsPostgreSQL only")
	}
	run := func(short bool) (string, error) {
		args := []string{"-test.run=^TestNeedsPostgreSQL$", "-test.v", "-test.count=1"}
		if short {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		// No server binaries where they are looked for, and no server named.
		cmd.Env = append(os.Environ(), childEnv+"=1", "FEEDPOLLER_PG_BIN="+t.TempDir(), EnvURL+"=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(true)
	if err != nil || !strings.Contains(out, "--- SKIP: TestNeedsPostgreSQL") || !strings.Contains(out, "PostgreSQL is not available") ||
		!strings.Contains(out, "-short") || strings.Contains(out, "reached the end") {
		t.Errorf("-short without PostgreSQL: %v\n%s\nwant the test skipped, saying why", err, out)
	}
	out, err = run(false)
	if err == nil || !strings.Contains(out, "--- FAIL: TestNeedsPostgreSQL") || !strings.Contains(out, "PostgreSQL is needed") {
		t.Errorf("full run without PostgreSQL: %v\n%s\nwant the test failed", err, out)
	}
}
