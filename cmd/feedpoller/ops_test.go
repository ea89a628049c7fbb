package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// cli runs the real binary in dir with exactly env and returns its
// combined output and exit error.
func cli(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustCLI is cli for commands that must succeed.
func mustCLI(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := cli(t, dir, env, args...)
	if err != nil {
		t.Fatalf("feedpoller %v: %v\n%s", args, err, out)
	}
	return out
}

// quietEnv is baseEnv at the default log level.
func quietEnv(dbURL string, extra ...string) []string {
	var env []string
	for _, kv := range baseEnv(dbURL, extra...) {
		if !strings.HasPrefix(kv, "FEEDPOLLER_LOG_LEVEL=") {
			env = append(env, kv)
		}
	}
	return env
}

// `feedpoller sql` cannot write, whatever is typed: each attack exits with
// an error saying why, and afterwards no token was added, no row changed
// and no file was written.
func TestSQLCommandIsReadOnly(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			dir := t.TempDir()
			files := t.TempDir()
			if err := os.Chmod(files, 0o777); err != nil { // a PostgreSQL server running as another user could write here
				t.Fatal(err)
			}
			dbURL := testdb.URL(t, dialect)
			env := baseEnv(dbURL)
			mustCLI(t, dir, env, "workspaces", "add", "--name", "kept")
			mustCLI(t, dir, env, "tokens", "create", "--admin", "--quiet")

			backdoor := "INSERT INTO api_tokens (workspace_id, name, token_hash) VALUES (NULL, 'backdoor', '" +
				store.HashToken("backdoor") + "')"
			attacks := map[string]string{ // query → what the error must say
				"COMMIT; " + backdoor:                            "one statement",
				"ROLLBACK; UPDATE workspaces SET name = 'pwned'": "one statement",
				backdoor:                `"INSERT" is not one`,
				"SELECT 1; " + backdoor: "one statement",
				"COPY (SELECT 1) TO '" + files + "/copied'":         `"COPY" is not one`,
				"/* SELECT */ UPDATE workspaces SET name = 'pwned'": `"UPDATE" is not one`,
			}
			if dialect == store.SQLite {
				attacks["COMMIT; PRAGMA query_only=OFF; "+backdoor] = "one statement"
				attacks["PRAGMA query_only=OFF"] = "refused by the read-only connection"
				attacks["VACUUM INTO '"+files+"/copy.db'"] = `"VACUUM" is not one`
				attacks["ATTACH DATABASE '"+files+"/attached.db' AS x"] = `"ATTACH" is not one`
				attacks["SELECT load_extension('"+files+"/x')"] = "load_extension is a function with side effects"
			} else {
				attacks["WITH x AS ("+backdoor+" RETURNING id) SELECT * FROM x"] = "read-only transaction"
				attacks["EXPLAIN ANALYZE "+backdoor] = "read-only transaction"
			}
			for q, want := range attacks {
				out, err := cli(t, dir, env, "sql", q)
				if err == nil || !strings.Contains(out, want) {
					t.Errorf("sql %q: %v\n%s\nwant a failure saying %q", q, err, out, want)
				}
			}
			st, err := store.Open(context.Background(), dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, err := st.LookupToken(context.Background(), "backdoor"); err == nil {
				t.Error("the backdoor admin token was stored")
			}
			var n int
			if err := st.DB().Get(&n, `SELECT COUNT(*) FROM workspaces WHERE name = 'kept'`); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Errorf("the workspace was changed")
			}
			if ents, _ := os.ReadDir(files); len(ents) > 0 {
				t.Errorf("files written: %v", ents)
			}
			if out := mustCLI(t, dir, env, "sql", "SELECT name FROM workspaces; -- all of them"); !strings.Contains(out, "kept") {
				t.Errorf("a read: %s", out)
			}
		})
	}
}

// No form of a database URL shows its password: not in errors, not in
// `config`, not in the start-up log; the Firecrawl API URL's credentials
// neither. A URL of no accepted form is refused with the forms named,
// never used as a SQLite file name.
func TestSecretsStayOutOfOutput(t *testing.T) {
	dir := t.TempDir()
	env := func(extra ...string) []string {
		return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "FEEDPOLLER_LOG_LEVEL=debug"}, extra...)
	}
	for _, c := range []struct {
		name   string
		env    []string
		args   []string
		secret string
		want   string // in the output
		fails  bool
	}{
		{"space in the password", env("FEEDPOLLER_DATABASE_URL=postgres://fp:Pa w0rd@127.0.0.1:1/db"),
			[]string{"migrate"}, "w0rd", "percent-encode", true},
		{"password parameter", env("FEEDPOLLER_DATABASE_URL=postgres://fp:s3cret-user@127.0.0.1:1/db?sslmode=disable&password=s3cret-param"),
			[]string{"config"}, "s3cret", "fp:xxxxx@", false},
		{"connect error", env("FEEDPOLLER_DATABASE_URL=postgres://fp:s3cret-user@127.0.0.1:1/db?sslmode=disable&password=s3cret-param&connect_timeout=2"),
			[]string{"migrate"}, "s3cret", "connect to postgres database postgres://fp:xxxxx@", true},
		{"key=value string", env("FEEDPOLLER_DATABASE_URL=host=db user=fp password=kv-s3cret dbname=fp"),
			[]string{"config"}, "kv-s3cret", "sqlite:PATH", true},
		{"quoted key=value password", env("FEEDPOLLER_DATABASE_URL=host=db password='kv s3cret' dbname=fp"),
			[]string{"migrate"}, "s3cret", "key=value", true},
		{"unsupported scheme", env("FEEDPOLLER_DATABASE_URL=mysql://fp:my-s3cret@db/fp"),
			[]string{"migrate"}, "my-s3cret", "postgres://", true},
		{"read-only URL", env("FEEDPOLLER_SQL_DATABASE_URL=postgres://reader:ro-s3cret@db/fp"),
			[]string{"config"}, "ro-s3cret", "reader:xxxxx@", false},
		{"Firecrawl URL in config", env("FIRECRAWL_API_KEY=fc-key", "FIRECRAWL_API_URL=http://fcuser:fc-s3cret@127.0.0.1:9/"),
			[]string{"config"}, "fc-s3cret", "fcuser:xxxxx@", false},
		{"bad Firecrawl URL", env("FIRECRAWL_API_KEY=fc-key", "FIRECRAWL_API_URL=ftp://fcuser:fc-s3cret@127.0.0.1:9/"),
			[]string{"poll"}, "fc-s3cret", "is not an absolute http(s) URL", true},
		{"Firecrawl URL at start", env("FEEDPOLLER_DATABASE_URL=sqlite:"+filepath.Join(dir, "fc.db"), "FIRECRAWL_API_KEY=fc-key",
			"FIRECRAWL_API_URL=http://fcuser:fc-s3cret@127.0.0.1:9/"), []string{"poll"}, "fc-s3cret", "fcuser:xxxxx@", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := cli(t, dir, c.env, c.args...)
			if (err != nil) != c.fails || strings.Contains(out, c.secret) || !strings.Contains(out, c.want) {
				t.Fatalf("feedpoller %v: %v\n%s\nwant failure=%v, %q shown and %q hidden", c.args, err, out, c.fails, c.want, c.secret)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 { // fc.db only
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("files created: %v; a refused URL must not become a SQLite file", names)
	}
}

// One-shot commands print their own output: the wiring (fetcher choice,
// migrations, connections) is logged at debug only. serve still says it at
// info.
func TestOneShotCommandsLeaveWiringToDebug(t *testing.T) {
	dir := t.TempDir()
	env := quietEnv("sqlite:" + filepath.Join(dir, "fp.db"))
	for _, args := range [][]string{{"poll"}, {"workspaces", "list"}, {"sources", "list"}, {"sql", "SELECT 1"}} {
		out := mustCLI(t, dir, env, args...)
		for _, chatter := range []string{"web sources fetched", "database migrated", "database connected", "level=INFO"} {
			if strings.Contains(out, chatter) {
				t.Errorf("feedpoller %v logs %q at info:\n%s", args, chatter, out)
			}
		}
	}
	d := startDaemon(t, dir, append(env, "FEEDPOLLER_ADMIN_TOKEN=wiring-admin-token"))
	if err := d.Stop(t, syscall.SIGTERM, 40*time.Second); err != nil {
		t.Errorf("stop the daemon: %v", err)
	}
	if !strings.Contains(d.Output(), "web sources fetched by the native fetcher") {
		t.Errorf("serve does not say which fetcher it uses:\n%s", d.Output())
	}
}

// migrate says one thing in one line.
func TestMigratePrintsOneLine(t *testing.T) {
	dir := t.TempDir()
	env := quietEnv("sqlite:" + filepath.Join(dir, "fp.db"))
	first := mustCLI(t, dir, env, "migrate")
	second := mustCLI(t, dir, env, "migrate")
	if strings.Count(first, "\n") != 1 || !strings.Contains(first, "migrated to schema version") {
		t.Errorf("first migrate: %q, want one line saying it migrated", first)
	}
	if strings.Count(second, "\n") != 1 || !strings.Contains(second, "latest schema version") {
		t.Errorf("second migrate: %q, want one line saying it is current", second)
	}
}

// serve --help and sql --help explain the command, not an empty flag list.
func TestHelpExplainsServeAndSQL(t *testing.T) {
	dir := t.TempDir()
	env := quietEnv("sqlite:" + filepath.Join(dir, "fp.db"))
	for args, wants := range map[string][]string{
		"serve --help": {"FEEDPOLLER_DATABASE_URL", "FEEDPOLLER_LISTEN", "FEEDPOLLER_ADMIN_TOKEN", "-listen", "config.yaml"},
		"sql --help":   {"one statement", "read-only", "FEEDPOLLER_SQL_DATABASE_URL", "SELECT"},
	} {
		out := mustCLI(t, dir, env, strings.Fields(args)...)
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", args, w, out)
			}
		}
		if strings.HasSuffix(strings.TrimSpace(out), "Flags:") {
			t.Errorf("%s ends in an empty flag list:\n%s", args, out)
		}
	}
}

// A lost admin token is recovered on the host: `tokens create --admin`
// makes a working one, `tokens list` shows them, `tokens revoke` ends one.
func TestTokensCommandRecoversAdminAccess(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect))
			d := startDaemon(t, dir, env) // generates an admin token nobody kept
			ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "tenant", "--quiet"))

			admin := strings.TrimSpace(mustCLI(t, dir, env, "tokens", "create", "--admin", "--quiet"))
			if code, _ := d.call(t, admin, "POST", "/api/intelligence/workspaces", map[string]any{"name": "by-recovered-admin"}); code != 201 {
				t.Fatalf("recovered admin token: %d", code)
			}
			out := mustCLI(t, dir, env, "tokens", "create", "--workspace", ws, "--name", "reader")
			wsTok := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
			if code, _ := d.call(t, wsTok, "GET", "/api/intelligence/workspaces/"+ws, nil); code != 200 {
				t.Fatalf("workspace token from the CLI: %d (%s)", code, out)
			}
			list := mustCLI(t, dir, env, "tokens", "list")
			if strings.Count(list, "\tadmin\tlive\t") != 2 || !strings.Contains(list, "workspace "+ws+"\tlive") ||
				strings.Contains(list, admin) {
				t.Fatalf("tokens list:\n%s", list)
			}
			adminList := mustCLI(t, dir, env, "tokens", "list", "--admin")
			if strings.Contains(adminList, "workspace ") {
				t.Fatalf("tokens list --admin shows a workspace token:\n%s", adminList)
			}
			// The recovered token is the last admin token listed.
			lines := strings.Split(strings.TrimSpace(adminList), "\n")
			id := strings.Fields(lines[len(lines)-1])[0]
			if out := mustCLI(t, dir, env, "tokens", "revoke", id); !strings.Contains(out, "revoked") {
				t.Fatalf("tokens revoke: %s", out)
			}
			if code, _ := d.call(t, admin, "GET", "/api/intelligence/workspaces", nil); code != 401 {
				t.Fatalf("revoked admin token: %d, want 401", code)
			}
			if out, err := cli(t, dir, env, "tokens", "revoke", id); err == nil || !strings.Contains(out, "no live token") {
				t.Fatalf("revoking twice: %v %s", err, out)
			}
			if out, err := cli(t, dir, env, "tokens", "create"); err == nil || !strings.Contains(out, "--admin or --workspace") {
				t.Fatalf("create without a scope: %v %s", err, out)
			}
		})
	}
}

// The README's read-only PostgreSQL role, given to `feedpoller sql`
// through FEEDPOLLER_SQL_DATABASE_URL: it reads the content, not the
// token hashes.
func TestSQLCommandWithReadOnlyRole(t *testing.T) {
	dir := t.TempDir()
	dbURL := testdb.URL(t, "postgres")
	env := quietEnv(dbURL)
	mustCLI(t, dir, env, "workspaces", "add", "--name", "readable")
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() }) // after the role is dropped: cleanups run last first
	var dbName string
	if err := st.DB().Get(&dbName, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	role := "reader_" + dbName
	for _, q := range []string{
		`CREATE ROLE ` + role + ` LOGIN`,
		`ALTER ROLE ` + role + ` SET default_transaction_read_only = on`,
		`GRANT CONNECT ON DATABASE ` + dbName + ` TO ` + role,
		`GRANT USAGE ON SCHEMA public TO ` + role,
		`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ` + role,
		`REVOKE SELECT ON api_tokens FROM ` + role,
		`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO ` + role,
	} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{`DROP OWNED BY ` + role, `DROP ROLE ` + role} {
			if _, err := st.DB().Exec(q); err != nil {
				t.Errorf("clean up the role: %v", err)
			}
		}
	})
	env = append(env, "FEEDPOLLER_SQL_DATABASE_URL="+strings.Replace(dbURL, "postgres@", role+"@", 1))
	if out := mustCLI(t, dir, env, "sql", "SELECT name, current_user FROM workspaces"); !strings.Contains(out, "readable\t"+role) {
		t.Fatalf("read as the reader role: %s", out)
	}
	if out, err := cli(t, dir, env, "sql", "SELECT token_hash FROM api_tokens"); err == nil || !strings.Contains(out, "permission denied") {
		t.Fatalf("token hashes as the reader role: %v %s", err, out)
	}
}
