package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestSQLiteSavesDoNotWaitForReaders: on SQLite a poll's claim of its
// source and its save run on the writing transactions' own connection.
// With every connection of the pool taken by readers (API requests,
// say), a claim and a save still go through, and the readers then see
// what was stored.
func TestSQLiteSavesDoNotWaitForReaders(t *testing.T) {
	s := testdb.Store(t, store.SQLite)
	ctx := context.Background()
	ws, srcs := seed(t, s, "https://writer.example/feed")

	pool := s.DB()
	var held []*sql.Conn
	for range pool.Stats().MaxOpenConnections {
		c, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// A deadline only so that a claim or save stuck behind the readers
	// fails the test instead of hanging it.
	save, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if got, err := s.ClaimDue(save, "me", 10, time.Minute); err != nil || len(got) != 1 {
		t.Fatalf("claim while readers hold all %d connections of the pool: %d sources, %v", len(held), len(got), err)
	}
	c, err := s.SavePoll(save, model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID, Owner: "me",
		Articles: []model.NewArticle{article("https://writer.example/1", "w1", true)},
		Source:   model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now().Add(30 * time.Minute)},
		Run:      model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: 1}})
	if err != nil {
		t.Fatalf("save while readers hold all %d connections of the pool: %v", len(held), err)
	}
	if c.New != 1 || c.Promoted != 1 {
		t.Fatalf("save counts %+v, want one new article, promoted", c)
	}

	var n int
	if err := held[0].QueryRowContext(ctx, `SELECT COUNT(*) FROM feed_articles WHERE feed_source_id = ?`, srcs[0].ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("a reader counts %d articles (%v), want the one saved", n, err)
	}
	for _, c := range held {
		_ = c.Close()
	}
}
