package store_test

import (
	"context"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// TestSQLiteConnectionSettings: every connection of the pool writes its
// statement journals and sorts in memory, not in temporary files (a
// save's multi-row INSERTs each write a journal), and caches 8 MiB of
// pages (a placement reads the recent term index on every save), and
// lets the write-ahead log grow to 8 000 pages before a commit copies it
// back (saves rewrite the same pages).
// Several connections are held at once so that each is a new one.
func TestSQLiteConnectionSettings(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.SQLite)
	want := []struct {
		pragma string
		value  int
	}{
		{"temp_store", 2}, // MEMORY
		{"cache_size", -8192},
		{"wal_autocheckpoint", 8000},
	}
	for i := range 3 {
		conn, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() //nolint:errcheck // a test connection
		for _, w := range want {
			var got int
			if err := conn.QueryRowContext(ctx, `PRAGMA `+w.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != w.value {
				t.Errorf("connection %d: %s = %d, want %d", i, w.pragma, got, w.value)
			}
		}
	}
}
