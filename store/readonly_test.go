package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// readOnlyFixture is a migrated database with one workspace and one admin
// token, the daemon's store on it, and a read-only connection to it.
type readOnlyFixture struct {
	st  *store.Store
	ro  *store.ReadOnly
	dir string // where attacks try to write files
}

func newReadOnlyFixture(t *testing.T, dialect string) readOnlyFixture {
	t.Helper()
	ctx := context.Background()
	u := testdb.URL(t, dialect)
	st, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateWorkspace(ctx, "kept", model.RelevanceProfile{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateToken(ctx, nil, "admin", "the-admin-secret"); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil { // so that a PostgreSQL server running as another user could write here
		t.Fatal(err)
	}
	return readOnlyFixture{st: st, ro: ro, dir: dir}
}

// unchanged fails the test if an attack left a trace: a token, a changed
// workspace, or a file.
func (f readOnlyFixture) unchanged(t *testing.T, attack string) {
	t.Helper()
	var tokens, workspaces int
	if err := f.st.DB().Get(&tokens, `SELECT COUNT(*) FROM api_tokens`); err != nil {
		t.Fatal(err)
	}
	if err := f.st.DB().Get(&workspaces, `SELECT COUNT(*) FROM workspaces WHERE name = 'kept'`); err != nil {
		t.Fatal(err)
	}
	if tokens != 1 || workspaces != 1 {
		t.Errorf("%s: %d tokens and %d workspaces named kept afterwards, want 1 and 1", attack, tokens, workspaces)
	}
	ents, _ := os.ReadDir(f.dir)
	for _, e := range ents {
		t.Errorf("%s: wrote the file %s", attack, e.Name())
	}
}

func (f readOnlyFixture) attacks(dialect string) []string {
	insert := `INSERT INTO api_tokens (workspace_id, name, token_hash) VALUES (NULL, 'backdoor', 'h')`
	out := []string{
		insert,
		`UPDATE workspaces SET name = 'changed'`,
		`DELETE FROM workspaces`,
		`WITH x AS (SELECT 1) ` + insert,
		`CREATE TABLE stolen (x INTEGER)`,
	}
	if dialect == store.SQLite {
		return append(out,
			`COMMIT`,
			`COMMIT; PRAGMA query_only=OFF; `+insert,
			`PRAGMA query_only=OFF`,
			`PRAGMA journal_mode=DELETE`,
			`VACUUM INTO '`+filepath.Join(f.dir, "copy.db")+`'`,
			`ATTACH DATABASE '`+filepath.Join(f.dir, "attached.db")+`' AS x`,
			`SELECT 1; `+insert,
			`SELECT load_extension('`+filepath.Join(f.dir, "x")+`')`,
		)
	}
	return append(out,
		`COMMIT; `+insert,
		`ROLLBACK; UPDATE workspaces SET name = 'changed'`,
		`SELECT 1; `+insert,
		`WITH x AS (`+insert+` RETURNING id) SELECT * FROM x`,
		`EXPLAIN ANALYZE `+insert,
	)
}

// `feedpoller sql` cannot write: every attack fails with an error and
// leaves the database and the file system as they were.
func TestReadOnlyQueryRefusesWrites(t *testing.T) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			f := newReadOnlyFixture(t, d)
			ctx := context.Background()
			attacks := append(f.attacks(d), `COMMIT`, `COPY (SELECT 1) TO '`+filepath.Join(f.dir, "copied")+`'`,
				`BEGIN; `+`INSERT INTO workspaces (name) VALUES ('x'); COMMIT`, `SET default_transaction_read_only = off`)
			for _, q := range attacks {
				err := f.ro.Query(ctx, q, func([]string) error { return nil })
				if err == nil {
					t.Errorf("%q ran", q)
				}
				f.unchanged(t, q)
			}
			// The check names the problem.
			err := f.ro.Query(ctx, `SELECT 1; DELETE FROM workspaces`, func([]string) error { return nil })
			if !errors.Is(err, store.ErrNotReadOnly) || !strings.Contains(err.Error(), "one statement") {
				t.Errorf("two statements: %v, want an error saying one statement", err)
			}
			err = f.ro.Query(ctx, `DELETE FROM workspaces`, func([]string) error { return nil })
			if !errors.Is(err, store.ErrNotReadOnly) || !strings.Contains(err.Error(), `"DELETE" is not one`) {
				t.Errorf("a delete: %v, want an error naming it", err)
			}
		})
	}
}

// The connection refuses writes by itself, beneath the statement check:
// the same attacks handed to it directly fail and change nothing.
func TestReadOnlyConnectionRefusesWritesOnItsOwn(t *testing.T) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			f := newReadOnlyFixture(t, d)
			for _, q := range f.attacks(d) {
				err := store.RunReadOnly(context.Background(), f.ro, q, func([]string) error { return nil })
				if err == nil {
					t.Errorf("%q ran on the read-only connection", q)
				} else if !strings.Contains(err.Error(), "refused by the read-only connection") {
					t.Errorf("%q: %v, want the refusal explained", q, err)
				}
				f.unchanged(t, q)
			}
			// A mistake is not taken for a refusal: the database's own
			// error is reported as it is.
			err := store.RunReadOnly(context.Background(), f.ro, `SELEC name FROM workspaces`, func([]string) error { return nil })
			if err == nil || strings.Contains(err.Error(), "refused") {
				t.Errorf("a syntax error: %v, want the database's error, not a refusal", err)
			}
		})
	}
}

// What an operator does run keeps working, semicolons inside strings,
// comments and a trailing semicolon included.
func TestReadOnlyQueryReads(t *testing.T) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			f := newReadOnlyFixture(t, d)
			queries := map[string]string{
				`SELECT name FROM workspaces`:                             "kept",
				"-- the names\nSELECT name || ';' FROM workspaces;":       "kept;",
				`SELECT 'a;b' /* ; */ AS x ; -- done`:                     "a;b",
				`WITH w AS (SELECT name FROM workspaces) SELECT * FROM w`: "kept",
			}
			if d == store.SQLite {
				queries[`PRAGMA table_info(workspaces)`] = "relevance_profile"
			} else {
				queries[`SELECT $$x;y$$`] = "x;y"
				queries[`SELECT E'it\'s;'`] = "it's;"
				queries[`SHOW default_transaction_read_only`] = "on"
				queries[`(SELECT COUNT(*) FROM api_tokens)`] = "1"
			}
			for q, want := range queries {
				var got []string
				err := f.ro.Query(context.Background(), q, func(vals []string) error {
					got = append(got, strings.Join(vals, "|"))
					return nil
				})
				if err != nil || !strings.Contains(strings.Join(got, "\n"), want) {
					t.Errorf("%q: %v %q, want %q", q, err, got, want)
				}
			}
		})
	}
}

func TestCheckReadQuery(t *testing.T) {
	for _, c := range []struct {
		dialect, query string
		ok             bool
	}{
		{store.SQLite, `SELECT 1`, true},
		{store.SQLite, `select 1;  `, true},
		{store.SQLite, `SELECT ';' ; `, true},
		{store.SQLite, `SELECT "a;b" FROM t`, true},
		{store.SQLite, "SELECT [x;y], `p;q` FROM t", true},
		{store.SQLite, `/* SELECT */ DELETE FROM t`, false},
		{store.SQLite, `SELECT 1; -- comment`, true},
		{store.SQLite, `SELECT 1; SELECT 2`, false},
		{store.SQLite, `SELECT 'unterminated`, false},
		{store.SQLite, `SELECT /* a /* b */ 1`, true},         // SQLite does not nest comments
		{store.SQLite, `SELECT /* a /* b */ ; DELETE`, false}, // so the ; is outside
		{store.SQLite, `VACUUM INTO 'x'`, false},
		{store.SQLite, `ATTACH 'x' AS y`, false},
		{store.SQLite, ``, false},
		{store.SQLite, `  ;`, false},
		{store.Postgres, `SELECT /* a /* b */ ; */ 1`, true}, // PostgreSQL nests them
		{store.Postgres, `SELECT $$;$$, $tag$ ' ; $tag$`, true},
		{store.Postgres, `SELECT $1; DELETE FROM t`, false},
		{store.Postgres, `SELECT a$b$; DELETE FROM t -- $b$`, false}, // a$b$ is an identifier
		{store.Postgres, `SELECT E'\'; DELETE FROM t; --'`, true},    // one string
		{store.Postgres, `SELECT '\'; DELETE FROM t; --'`, false},    // standard string ends at \'
		{store.Postgres, `TABLE workspaces`, true},
		{store.Postgres, `COPY t TO 'x.csv'`, false},
		{store.Postgres, `BEGIN`, false},
		{store.Postgres, `SET transaction_read_only = off`, false},
	} {
		err := store.CheckReadQuery(c.dialect, c.query)
		if (err == nil) != c.ok {
			t.Errorf("%s %q: %v, want ok=%v", c.dialect, c.query, err, c.ok)
		}
	}
}

// A database that is not there is named, not created.
func TestReadOnlyNeverCreatesADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "fp.db")
	_, err := store.OpenReadOnly(context.Background(), "sqlite:"+path)
	if err == nil || !strings.Contains(err.Error(), "feedpoller migrate") {
		t.Fatalf("missing database: %v, want an error pointing at migrate", err)
	}
	if _, serr := os.Stat(filepath.Dir(path)); !os.IsNotExist(serr) {
		t.Fatal("opening read-only created the directory")
	}
}
