package store_test

import (
	"context"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// TestSQLiteConnectionsKeepTemporaryDataInMemory: every connection of
// the pool writes its statement journals and sorts in memory, not in
// temporary files (a save's multi-row INSERTs each write a journal).
// Several connections are held at once so that each is a new one.
func TestSQLiteConnectionsKeepTemporaryDataInMemory(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.SQLite)
	for i := range 3 {
		conn, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() //nolint:errcheck // a test connection
		var mode int
		if err := conn.QueryRowContext(ctx, `PRAGMA temp_store`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if mode != 2 { // 2 is MEMORY
			t.Errorf("connection %d: temp_store = %d, want 2 (memory)", i, mode)
		}
	}
}
