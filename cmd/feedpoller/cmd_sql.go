package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/store"
)

const sqlAbout = `Runs one read-only SQL statement against the configured database and prints the
rows, tab-separated, with a header line. It is an operator's tool for the host the
database is on: whoever may run it may read every table.

Read-only by construction:
  - exactly one statement; anything after the first ';' is refused;
  - it must start with SELECT, WITH, VALUES or EXPLAIN (PostgreSQL also TABLE and SHOW,
    SQLite also the schema-reading PRAGMAs such as table_info);
  - SQLite: a separate connection that opens the file read-only and refuses writes,
    ATTACH (and VACUUM INTO), transaction control and other PRAGMAs;
  - PostgreSQL: a session whose transactions are read-only, the statement run in a READ
    ONLY transaction as a prepared statement (which holds one command only).
It never creates or migrates a database.

On PostgreSQL, give it a role that may only SELECT and point FEEDPOLLER_SQL_DATABASE_URL
(sql_database_url in config.yaml) at it: a read-only transaction still lets a
superuser call server functions with side effects.`

func runSQL(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagsAbout(env, "sql", `sql "SELECT …"`, sqlAbout)
	query, err := oneArg(fs, args)
	if err != nil {
		return err
	}
	cfg, err := env.config()
	if err != nil {
		return err
	}
	dbURL := cfg.DatabaseURL
	if cfg.SQLDatabaseURL != "" {
		dbURL = cfg.SQLDatabaseURL
	}
	ro, err := store.OpenReadOnly(ctx, dbURL)
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
