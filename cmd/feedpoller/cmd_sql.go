package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/store"
)

const sqlAbout = `Runs one read-only SQL statement against the configured database and prints the
rows, tab-separated, with a header line; times in RFC 3339 (UTC). It is an operator's
tool for the host the database is on: it reads every table but those of secrets.

Read-only by construction:
  - exactly one statement; anything after the first ';' is refused;
  - it must start with SELECT, WITH, VALUES or EXPLAIN (PostgreSQL also TABLE and SHOW,
    SQLite also the schema-reading PRAGMAs such as table_info);
  - it may not name a function with side effects: advisory locks, pg_sleep, signals to
    other sessions (pg_terminate_backend, pg_cancel_backend), pg_reload_conf,
    set_config, sequences (nextval, setval), large objects (lo_*), server files
    (pg_read_file, pg_ls_dir, …), dblink, SQL run from text (query_to_xml, ts_stat, …);
  - it may not name the tables of secrets (webhook_secrets, websub_secrets, and the
    schema feedpoller_secrets on PostgreSQL);
  - SQLite: a separate connection that opens the file read-only and refuses writes,
    ATTACH (and VACUUM INTO), transaction control, other PRAGMAs and reading secrets;
  - PostgreSQL: a session whose transactions are read-only, the statement run in a READ
    ONLY transaction as a prepared statement (which holds one command only), stopped by
    the server after --timeout (statement_timeout) or after 2s waiting for a lock.
It never creates or migrates a database.

On PostgreSQL, give it the reader role of the README and point FEEDPOLLER_SQL_DATABASE_URL
(sql_database_url in config.yaml) at it: the checks above are this command's; the role
holds whatever client connects with it to the same rules.`

func runSQL(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagsAbout(env, "sql", `sql [--timeout 1m] "SELECT …"`, sqlAbout)
	timeout := fs.Duration("timeout", store.DefaultQueryTimeout, "stop the statement after this long")
	query, err := oneArg(fs, args)
	if err != nil {
		return err
	}
	if *timeout <= 0 {
		return fmt.Errorf("--timeout must be more than 0")
	}
	cfg, err := env.config()
	if err != nil {
		return err
	}
	dbURL := cfg.DatabaseURL
	if cfg.SQLDatabaseURL != "" {
		dbURL = cfg.SQLDatabaseURL
	}
	ro, err := store.OpenReadOnlyWith(ctx, dbURL, *timeout)
	if err != nil {
		return err
	}
	defer ro.Close()
	clean := strings.NewReplacer("\t", " ", "\n", " ")
	return ro.Query(ctx, query, func(vals []string) error {
		for i, v := range vals {
			vals[i] = clean.Replace(v)
		}
		_, err := fmt.Fprintln(env.stdout, strings.Join(vals, "\t"))
		return err
	})
}
