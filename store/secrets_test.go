package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/migrations"
)

// migrateTo opens a fresh database of the dialect and applies the
// migrations before version, as an older binary left it.
func migrateTo(t *testing.T, dialect string, version int) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, testdb.URL(t, dialect))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ms, err := migrations.List(s.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	db := s.DB()
	if _, err := db.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Version >= version {
			break
		}
		if _, err := db.ExecContext(ctx, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO schema_migrations VALUES (?, ?, ?)`), m.Version, m.Name, time.Now().Format(time.RFC3339)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// The secrets migration moves every webhook secret and WebSub callback
// token and secret out of the tables reports read, and the daemon goes on
// using them: a pending delivery is claimed with its secret, a callback
// finds its subscription, new subscriptions never reuse an id.
func TestSecretsMigrationMovesSecrets(t *testing.T) {
	const secretsVersion = 12
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := migrateTo(t, d, secretsVersion)
			db := s.DB()
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, db.Rebind(q), args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			exec(`INSERT INTO workspaces (id, name) VALUES (1, 'old')`)
			exec(`INSERT INTO webhooks (id, workspace_id, url, secret, events) VALUES (1, 1, 'https://r.example/hook', 'old-webhook-secret', 'content_item.promoted')`)
			exec(`INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, event, payload, next_attempt_at) VALUES ('d1', 1, 1, 'content_item.promoted', '{}', ?)`,
				time.Now().Add(-time.Minute).UTC())
			var ids []int64
			for i, tok := range []string{"old-callback-token", "gone-token"} {
				var id int64
				if err := db.GetContext(ctx, &id, db.Rebind(`INSERT INTO websub_subscriptions (feed_source_id, hub_url, topic_url,
					callback_token, secret, next_request_at, created_at, updated_at)
					VALUES (?, 'https://hub.example/', 'https://example.com/feed', ?, 'old-websub-secret', ?, ?, ?) RETURNING id`),
					i+10, tok, time.Now().UTC(), time.Now().UTC(), time.Now().UTC()); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			exec(`DELETE FROM websub_subscriptions WHERE id = ?`, ids[1])

			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			claimed, err := s.Outbox().ClaimDue(ctx, "worker", time.Now(), 10, time.Minute)
			if err != nil || len(claimed) != 1 || claimed[0].Secret != "old-webhook-secret" {
				t.Fatalf("claimed %+v (%v), want the delivery with the moved secret", claimed, err)
			}
			sub, err := s.SubscriptionByToken(ctx, "old-callback-token")
			if err != nil || sub.Secret != "old-websub-secret" || sub.ID != ids[0] {
				t.Fatalf("subscription by its callback token: %+v %v", sub, err)
			}
			for _, q := range []string{`SELECT secret FROM webhooks`, `SELECT callback_token FROM websub_subscriptions`,
				`SELECT secret FROM websub_subscriptions`} {
				if _, err := db.ExecContext(ctx, q); err == nil {
					t.Errorf("%s still reads a secret from a reported table", q)
				}
			}
			next := &model.Subscription{SourceID: 99, HubURL: "https://hub.example/", TopicURL: "https://example.com/other",
				CallbackToken: "new-token", Secret: "new-secret", NextRequestAt: time.Now()}
			if err := s.CreateSubscription(ctx, next); err != nil {
				t.Fatal(err)
			}
			if next.ID <= ids[1] {
				t.Errorf("a new subscription got id %d, which a deleted one had", next.ID)
			}
			if _, err := s.SubscriptionByToken(ctx, "new-token"); err != nil {
				t.Errorf("the new subscription is not found by its token: %v", err)
			}
		})
	}
}

// A new SQLite database, and the -wal and -shm files beside it, are
// readable and writable by their owner only, whatever the umask lets
// through: the file holds the secrets.
func TestSQLiteFilesOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "feedpoller.db")
	s, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWorkspace(ctx, "w", model.RelevanceProfile{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
}

// `feedpoller sql` never reads a secret: the check refuses a query naming
// a table of secrets on both databases, and on SQLite the connection's
// authorizer refuses it beneath the check too.
func TestReadOnlyRefusesSecrets(t *testing.T) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			f := newReadOnlyFixture(t, d)
			ctx := context.Background()
			if _, err := f.st.CreateWebhook(ctx, 1, "https://r.example/hook", "the-webhook-secret", []string{"content_item.promoted"}, 0); err != nil {
				t.Fatal(err)
			}
			table := "webhook_secrets"
			if d == store.Postgres {
				table = "feedpoller_secrets.webhook_secrets"
			}
			for _, q := range []string{`SELECT secret FROM ` + table, `SELECT * FROM "websub_secrets"`,
				`SELECT w.url, (SELECT secret FROM ` + table + ` k WHERE k.webhook_id = w.id) FROM webhooks w`} {
				var out []string
				err := f.ro.Query(ctx, q, func(v []string) error { out = append(out, v...); return nil })
				if !errors.Is(err, store.ErrNotReadOnly) || !strings.Contains(err.Error(), "secrets") {
					t.Errorf("%s: %v, want a refusal naming the secrets", q, err)
				}
				if strings.Contains(strings.Join(out, " "), "the-webhook-secret") {
					t.Errorf("%s printed the secret", q)
				}
			}
			if d == store.SQLite {
				err := store.RunReadOnly(ctx, f.ro, `SELECT secret FROM webhook_secrets`, func([]string) error { return nil })
				if err == nil || !strings.Contains(err.Error(), "refused") {
					t.Errorf("the connection itself read a secret: %v", err)
				}
			}
		})
	}
}

// `feedpoller sql` calls no function with side effects: on PostgreSQL,
// with the daemon's own (superuser) role, advisory locks, sleeps, ending
// or cancelling the daemon's sessions, settings, sequences, large
// objects, server files and SQL run from text are refused by name, and
// the daemon's session survives; its statements and lock waits are
// bounded by the server.
func TestReadOnlyRefusesSideEffects(t *testing.T) {
	f := newReadOnlyFixture(t, store.Postgres)
	ctx := context.Background()
	conn, err := f.st.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var pid string
	if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()::text`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`SELECT pg_advisory_lock(7246001)`,
		`SELECT pg_advisory_lock(7246001), pg_sleep(28)`,
		`SELECT PG_CATALOG.PG_TRY_ADVISORY_LOCK(1)`,
		`SELECT "pg_sleep"(1)`,
		`SELECT * FROM pg_sleep_for('1 second')`,
		`SELECT pg_terminate_backend(` + pid + `)`,
		`SELECT pg_cancel_backend(` + pid + `)`,
		`SELECT pg_reload_conf()`,
		`SELECT set_config('statement_timeout', '0', false)`,
		`SELECT nextval('feed_sources_id_seq')`,
		`SELECT lo_import('/etc/passwd')`,
		`SELECT pg_read_file('postgresql.conf')`,
		`SELECT query_to_xml('SELECT pg_sleep(1)', true, false, '')`,
		`SELECT table_to_xml('feedpoller_secrets.webhook_secrets', true, false, '')`,
		`SELECT ts_stat('SELECT pg_advisory_lock(1)')`,
		`SELECT dblink_connect('host=elsewhere')`,
		`SELECT U&"pg\005fsleep"(1)`,
		`EXPLAIN ANALYZE SELECT pg_sleep(1)`,
	} {
		err := f.ro.Query(ctx, q, func([]string) error { return nil })
		if !errors.Is(err, store.ErrNotReadOnly) {
			t.Errorf("%s: %v, want it refused before it runs", q, err)
		}
	}
	if err := conn.PingContext(ctx); err != nil {
		t.Fatalf("the daemon's session was ended: %v", err)
	}
	// What looks like one but is not is not refused: a string, a comment.
	for _, q := range []string{`SELECT 'pg_sleep(1)' AS quoted`, `SELECT 1 -- pg_advisory_lock`} {
		if err := f.ro.Query(ctx, q, func([]string) error { return nil }); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	settings := map[string]string{}
	for _, name := range []string{"statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"} {
		if err := f.ro.Query(ctx, `SHOW `+name, func(v []string) error { settings[name] = v[0]; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if settings["statement_timeout"] != "1min" || settings["lock_timeout"] != "2s" || settings["idle_in_transaction_session_timeout"] != "1min" {
		t.Errorf("the read-only session's settings %v, want statement_timeout 1min, lock_timeout 2s", settings)
	}
}

// A command finds the schema current without taking the migration lock,
// so a session holding that lock (anyone may take an advisory lock)
// delays no command when nothing is to be migrated.
func TestMigrateTakesNoLockWhenCurrent(t *testing.T) {
	ctx := context.Background()
	u := testdb.URL(t, store.Postgres)
	s := openURL(t, u, store.Options{})
	holder, err := sql.Open("postgres", u)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	hc, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if _, err := hc.ExecContext(ctx, `SELECT pg_advisory_lock(7246001)`); err != nil {
		t.Fatal(err)
	}
	// The deadline only keeps a regression from hanging the suite.
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if applied, err := s.Migrate(wait); err != nil || len(applied) != 0 {
		t.Fatalf("migrating a current schema while another session holds the lock: %v %v", applied, err)
	}
}
