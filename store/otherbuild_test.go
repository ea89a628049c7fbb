package store_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// otherSQLite runs SQL on a database file through another SQLite build
// than the daemon's: Debian's sqlite3 command, or Python's sqlite3 module.
type otherSQLite struct {
	name string
	run  func(path, sql string) (string, error)
}

// otherSQLiteBuilds are the other builds found on this machine; the test
// skips, saying so, when there is none.
func otherSQLiteBuilds(t *testing.T) []otherSQLite {
	t.Helper()
	var out []otherSQLite
	if p, err := exec.LookPath("sqlite3"); err == nil {
		out = append(out, otherSQLite{name: "sqlite3 command", run: func(path, sql string) (string, error) {
			b, err := exec.Command(p, "-bail", path, sql).CombinedOutput()
			return string(b), err
		}})
	}
	if p, err := exec.LookPath("python3"); err == nil && exec.Command(p, "-c", "import sqlite3").Run() == nil {
		const script = `import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
for row in c.execute(sys.argv[2]).fetchall():
    print("|".join(str(v) for v in row))`
		out = append(out, otherSQLite{name: "python3 sqlite3 module", run: func(path, sql string) (string, error) {
			b, err := exec.Command(p, "-c", script, path, sql).CombinedOutput()
			return string(b), err
		}})
	}
	if len(out) == 0 {
		t.Skip("no other SQLite build here (neither the sqlite3 command nor python3's sqlite3 module): apt-get install -y sqlite3")
	}
	return out
}

// fractionTimes are times whose fraction of a second is .9995 or more,
// where SQLite 3.40 and the daemon's build disagreed on julianday() of
// the nanoseconds the driver used to write.
func fractionTimes(n int) []time.Time {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	out := make([]time.Time, n)
	for i := range out {
		out[i] = base.Add(time.Duration(i)*time.Second + 999_500_000 + time.Duration(i%500)*997)
	}
	return out
}

// The daemon's SQLite file is shared alike with another SQLite build: the
// times it writes (fractions of .9995 s and more included) are stored to
// the millisecond, so another client finds the due index consistent,
// updates the rows, and the daemon then finds every source due.
func TestOtherSQLiteBuildSharesTheFile(t *testing.T) {
	for _, other := range otherSQLiteBuilds(t) {
		t.Run(other.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "shared.db")
			s, err := store.Open(ctx, "sqlite:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			ws, err := s.CreateWorkspace(ctx, "shared", model.RelevanceProfile{})
			if err != nil {
				t.Fatal(err)
			}
			times := fractionTimes(300)
			for i, at := range times {
				src := &model.FeedSource{WorkspaceID: ws.ID, URL: fmt.Sprintf("https://example.com/%d.xml", i), SourceType: model.SourceRSS,
					IsActive: true, PollingIntervalMinutes: 30}
				if err := s.CreateSource(ctx, src); err != nil {
					t.Fatal(err)
				}
				// A time the daemon writes, as the scheduler writes the next poll.
				if _, err := s.DB().ExecContext(ctx, `UPDATE feed_sources SET next_poll_at = ? WHERE id = ?`, at, src.ID); err != nil {
					t.Fatal(err)
				}
			}
			version, _ := other.run(path, `SELECT sqlite_version()`)
			t.Logf("other build: %s %s", other.name, strings.TrimSpace(version))
			if out, err := other.run(path, `PRAGMA integrity_check`); err != nil || strings.TrimSpace(out) != "ok" {
				t.Fatalf("%s finds the daemon's file inconsistent: %s %v", other.name, clipLines(out), err)
			}
			if out, err := other.run(path, `UPDATE feed_sources SET next_poll_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 minute')`); err != nil {
				t.Fatalf("%s could not update the sources: %s %v", other.name, clipLines(out), err)
			}
			var check string
			if err := s.DB().GetContext(ctx, &check, `PRAGMA integrity_check`); err != nil || check != "ok" {
				t.Fatalf("the daemon finds the file inconsistent after the other client's update: %s %v", check, err)
			}
			if n, err := s.CountDue(ctx); err != nil || n != len(times) {
				t.Fatalf("%d sources due (%v), want all %d", n, err, len(times))
			}
			var long int
			if err := s.DB().GetContext(ctx, &long, `SELECT COUNT(*) FROM feed_sources WHERE created_at GLOB '*.[0-9][0-9][0-9][0-9]*'`); err != nil || long != 0 {
				t.Fatalf("%d sources stored with more than milliseconds (%v)", long, err)
			}
		})
	}
}

// Rows an older binary wrote with nanoseconds are rewritten to the
// millisecond by migration 0013, indexes rebuilt: another build then finds
// the file consistent and can update them.
func TestMillisecondMigrationRewritesOldRows(t *testing.T) {
	const msVersion = 13
	others := otherSQLiteBuilds(t)
	ctx := context.Background()
	s := migrateTo(t, store.SQLite, msVersion)
	db := s.DB()
	if _, err := db.ExecContext(ctx, `INSERT INTO workspaces (id, name) VALUES (1, 'old')`); err != nil {
		t.Fatal(err)
	}
	for i, at := range fractionTimes(300) {
		// What the driver wrote before: nanoseconds, written as text here
		// so the store's truncation does not apply.
		text := at.Format("2006-01-02 15:04:05.999999999-07:00")
		if _, err := db.ExecContext(ctx, `INSERT INTO feed_sources (workspace_id, url, next_poll_at) VALUES (1, ?, ?)`,
			fmt.Sprintf("https://example.com/%d.xml", i), text); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO feed_articles (workspace_id, external_url, created_at, reported_at) VALUES (1, ?, ?, ?)`,
			fmt.Sprintf("https://example.com/a/%d", i), text, text); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var long int
	if err := db.GetContext(ctx, &long, `SELECT (SELECT COUNT(*) FROM feed_sources WHERE next_poll_at GLOB '*.[0-9][0-9][0-9][0-9]*')
		+ (SELECT COUNT(*) FROM feed_articles WHERE reported_at GLOB '*.[0-9][0-9][0-9][0-9]*' OR created_at GLOB '*.[0-9][0-9][0-9][0-9]*')`); err != nil || long != 0 {
		t.Fatalf("%d times left with more than milliseconds (%v)", long, err)
	}
	path := dbPath(t, s)
	for _, other := range others {
		if out, err := other.run(path, `PRAGMA integrity_check`); err != nil || strings.TrimSpace(out) != "ok" {
			t.Fatalf("%s finds the migrated file inconsistent: %s %v", other.name, clipLines(out), err)
		}
		if out, err := other.run(path, `UPDATE feed_sources SET next_poll_at = datetime('now', '-1 minute')`); err != nil {
			t.Fatalf("%s could not update the migrated sources: %s %v", other.name, clipLines(out), err)
		}
	}
	if n, err := s.CountDue(ctx); err != nil || n != 300 {
		t.Fatalf("%d sources due after the migration (%v), want 300", n, err)
	}
}

// dbPath is the file of a SQLite store.
func dbPath(t *testing.T, s *store.Store) string {
	t.Helper()
	var seq int
	var name, file string
	if err := s.DB().QueryRow(`PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

func clipLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = append(lines[:5], fmt.Sprintf("… (%d lines)", len(lines)))
	}
	return strings.Join(lines, "\n")
}
