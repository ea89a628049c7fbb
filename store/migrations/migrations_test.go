package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/store/migrations"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestCurrentVersion: an empty database is at version 0, a migrated one
// at the latest version, on both databases.
func TestCurrentVersion(t *testing.T) {
	ctx := context.Background()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			st, err := store.Open(ctx, testdb.URL(t, d))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if v, err := migrations.Current(ctx, st.DB()); err != nil || v != 0 {
				t.Fatalf("empty database: version %d, %v; want 0", v, err)
			}
			if _, err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			latest, err := migrations.Latest(d)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := migrations.Current(ctx, st.DB()); err != nil || v != latest {
				t.Fatalf("migrated database: version %d, %v; want %d", v, err, latest)
			}
		})
	}
}

// TestCurrentVersionReportsOtherErrors: only a missing schema_migrations
// means version 0. A role that may not read the table gets the database's
// reason, not "run feedpoller migrate" on a database that is migrated.
func TestCurrentVersionReportsOtherErrors(t *testing.T) {
	ctx := context.Background()
	u := testdb.URL(t, "postgres")
	st, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() }) // after the role is dropped: cleanups run last first
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var dbName string
	if err := st.DB().Get(&dbName, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	role := "stranger_" + dbName
	for _, q := range []string{`CREATE ROLE ` + role + ` LOGIN`, `GRANT CONNECT ON DATABASE ` + dbName + ` TO ` + role} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{`DROP OWNED BY ` + role, `DROP ROLE ` + role} {
			if _, err := st.DB().Exec(q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	db, err := sqlx.Open("postgres", strings.Replace(u, "postgres@", role+"@", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := migrations.Current(ctx, db)
	if err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("a role that may not read schema_migrations: version %d, %v; want the permission error", v, err)
	}
}
