package store_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// readerRecipe is the README's SQL that makes the reporting role, with
// its role and database names replaced by the test's.
func readerRecipe(t *testing.T, database, daemon, reader string) string {
	t.Helper()
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "    CREATE ROLE feedpoller_reader"):
			in = true
		case in && !strings.HasPrefix(line, "    "):
			in = false
		}
		if in {
			lines = append(lines, strings.TrimPrefix(line, "    "))
		}
	}
	if len(lines) == 0 {
		t.Fatal("the README has no recipe starting with CREATE ROLE feedpoller_reader")
	}
	sqlText := strings.Join(lines, "\n")
	sqlText = regexp.MustCompile(`\bfeedpoller_reader\b`).ReplaceAllString(sqlText, reader)
	sqlText = regexp.MustCompile(`\bDATABASE feedpoller\b`).ReplaceAllString(sqlText, "DATABASE "+database)
	return regexp.MustCompile(`\bfeedpoller\b`).ReplaceAllString(sqlText, daemon)
}

// The README's reader role, made by its recipe on a real PostgreSQL whose
// tables a separate daemon role owns, reads the tables but no secret,
// and can neither write, lock, sleep, signal the daemon's sessions, nor
// do the rest the README says it cannot, from any client; the daemon
// keeps working (its migration lock and the locks of a poll's save
// included), and tables it creates
// later are readable by the reader.
func TestReaderRoleRecipe(t *testing.T) {
	ctx := context.Background()
	var roles []string
	var clusterURL string
	// Registered before the database is made, so it runs after the
	// database is dropped: the roles are the cluster's, and a role that
	// owns a database or holds privileges in it cannot be dropped.
	t.Cleanup(func() {
		if clusterURL == "" {
			return
		}
		admin, err := sql.Open("postgres", clusterURL)
		if err != nil {
			return
		}
		defer admin.Close()
		for _, r := range roles {
			if _, err := admin.Exec(`DROP ROLE IF EXISTS ` + r); err != nil {
				t.Logf("drop role %s: %v", r, err)
			}
		}
	})
	superURL := testdb.URL(t, store.Postgres)
	super, err := sql.Open("postgres", superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close()
	var dbName string
	if err := super.QueryRow(`SELECT current_database()`).Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	daemon, reader := "daemon_"+dbName, "reader_"+dbName
	roles = []string{reader, daemon}
	clusterURL = strings.Replace(superURL, "/"+dbName, "/postgres", 1)
	exec := func(db *sql.DB, q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(super, `CREATE ROLE `+daemon+` LOGIN`)
	exec(super, `ALTER DATABASE `+dbName+` OWNER TO `+daemon)
	asRole := func(role string) string { return strings.Replace(superURL, "postgres@", role+"@", 1) }

	st, err := store.Open(ctx, asRole(daemon))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ws, err := st.CreateWorkspace(ctx, "reported", model.RelevanceProfile{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateWebhook(ctx, ws.ID, "https://receiver.example/hook", "webhook-secret-value", []string{webhooks.EventContentItemPromoted}, 0); err != nil {
		t.Fatal(err)
	}
	src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://example.com/feed.xml", SourceType: model.SourceRSS, IsActive: true,
		PollingIntervalMinutes: 30, ScheduleMode: model.ScheduleAdaptive}
	if err := st.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateSubscription(ctx, &model.Subscription{SourceID: src.ID, HubURL: "https://hub.example/", TopicURL: src.URL,
		CallbackToken: "callback-token-value", Secret: "websub-secret-value", NextRequestAt: time.Now()}); err != nil {
		t.Fatal(err)
	}

	exec(super, readerRecipe(t, dbName, daemon, reader))

	// The daemon still migrates under its lock and creates tables.
	if _, err := st.DB().Exec(`SELECT pg_advisory_lock(7246001), pg_advisory_unlock(7246001)`); err != nil {
		t.Fatalf("the daemon's role lost its migration lock: %v", err)
	}
	// And saves polls, whose story placement locks the articles' index
	// terms (pg_advisory_xact_lock_shared, then pg_try_advisory_xact_lock
	// just before the commit).
	arts := []model.NewArticle{storyArticle("https://example.com/quake", "Quake off Chile", wire, time.Now(), false)}
	if _, err := trySavePoll(st, ws, src, placer(t, arts), arts...); err != nil {
		t.Fatalf("the daemon's role cannot save a poll: %v", err)
	}
	if _, err := st.DB().Exec(`CREATE TABLE later_migration (x INTEGER); INSERT INTO later_migration VALUES (7)`); err != nil {
		t.Fatalf("the daemon's role cannot create a table: %v", err)
	}
	daemonConn, err := st.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer daemonConn.Close()
	var daemonPID int
	if err := daemonConn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&daemonPID); err != nil {
		t.Fatal(err)
	}

	// Any client of the reader role: a plain connection.
	rd, err := sql.Open("postgres", asRole(reader))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.SetMaxOpenConns(1)
	for _, q := range []string{`SELECT COUNT(*) FROM feed_sources`, `SELECT url FROM webhooks`,
		`SELECT hub_url, topic_url, state FROM websub_subscriptions`, `SELECT x FROM later_migration`} {
		if _, err := rd.Exec(q); err != nil {
			t.Errorf("the reader cannot read: %s: %v", q, err)
		}
	}
	var timeout string
	if err := rd.QueryRow(`SHOW statement_timeout`).Scan(&timeout); err != nil || timeout != "1min" {
		t.Errorf("the reader's statement_timeout is %q (%v), want the role's 1min", timeout, err)
	}
	refused := []string{
		`SELECT secret FROM feedpoller_secrets.webhook_secrets`,
		`SELECT callback_token, secret FROM feedpoller_secrets.websub_secrets`,
		`SELECT token_hash FROM api_tokens`,
		`SELECT pg_advisory_lock(7246001)`,
		`SELECT pg_try_advisory_lock(7246001)`,
		`SELECT pg_advisory_xact_lock(1)`,
		`SELECT pg_advisory_lock_shared(1, 2)`,
		`SELECT pg_sleep(0)`,
		`SELECT pg_sleep_for('0 seconds')`,
		fmt.Sprintf(`SELECT pg_terminate_backend(%d)`, daemonPID),
		fmt.Sprintf(`SELECT pg_cancel_backend(%d)`, daemonPID),
		`SELECT pg_reload_conf()`,
		`SELECT lo_create(0)`,
		`SELECT lo_from_bytea(0, 'x')`,
		`SELECT nextval('feed_sources_id_seq')`,
		`SELECT setval('feed_sources_id_seq', 1)`,
		`SELECT pg_read_file('postgresql.conf')`,
		`SELECT pg_ls_dir('.')`,
		`INSERT INTO workspaces (name) VALUES ('by the reader')`,
	}
	for _, q := range refused {
		if _, err := rd.Exec(q); err == nil {
			t.Errorf("the reader ran %s", q)
		}
	}
	// Even with its session made read-write, it may not write or create.
	exec(rd, `SET default_transaction_read_only = off`)
	for _, q := range []string{`INSERT INTO workspaces (name) VALUES ('by the reader')`, `UPDATE feed_sources SET title = 'x'`,
		`CREATE TEMP TABLE scratch (x INTEGER)`, `CREATE TABLE public.planted (x INTEGER)`, `SELECT lo_create(0)`,
		`SELECT url FROM feed_sources FOR UPDATE`} {
		if _, err := rd.Exec(q); err == nil {
			t.Errorf("the reader, read-write, ran %s", q)
		}
	}
	if err := daemonConn.PingContext(ctx); err != nil {
		t.Errorf("the daemon's session did not survive the reader: %v", err)
	}
	var secrets int
	if err := st.DB().Get(&secrets, `SELECT COUNT(*) FROM feedpoller_secrets.webhook_secrets`); err != nil || secrets != 1 {
		t.Errorf("the daemon reads %d webhook secrets (%v), want 1", secrets, err)
	}

	// feedpoller sql as the reader: it reads, and the role refuses a
	// secret even if the command's own check were not there.
	ro, err := store.OpenReadOnly(ctx, asRole(reader))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var got []string
	if err := ro.Query(ctx, `SELECT name FROM workspaces`, func(v []string) error { got = append(got, v...); return nil }); err != nil ||
		!strings.Contains(strings.Join(got, ","), "reported") {
		t.Errorf("feedpoller sql as the reader: %v %v", got, err)
	}
	if err := store.RunReadOnly(ctx, ro, `SELECT secret FROM feedpoller_secrets.webhook_secrets`, func([]string) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "permission denied") {
		t.Errorf("the reader's connection read a secret: %v", err)
	}
}
