package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"
)

// writeGate lets one transaction of a SQLite database run at a time in
// this process. Every transaction of the daemon's pool begins IMMEDIATE,
// taking SQLite's one write lock, so a second one could not run anyway;
// without the gate it retries the lock from SQLite's busy handler, which
// sleeps 1, 2, 5, 10… up to 100 ms between tries: each try costs CPU
// (locks, system calls), and the lock may sit free for most of a sleep
// while writers wait. Queued on the gate, a writer starts the moment the
// one before it ends, and waiting costs nothing. Other processes on the
// same file still meet the busy handler, as before.
type writeGate chan struct{}

func newWriteGate() writeGate { return make(writeGate, 1) }

// enter waits for the gate, or for ctx.
func (g writeGate) enter(ctx context.Context) error {
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for the database's write lock: %w", ctx.Err())
	}
}

func (g writeGate) leave() { <-g }

// gatedTx is a transaction holding its database's write gate until it
// commits or rolls back (database/sql may roll back from another
// goroutine when a context ends, so the gate is left once, whichever
// comes first).
type gatedTx struct {
	driver.Tx
	once sync.Once
	gate writeGate
}

func (t *gatedTx) Commit() error {
	defer t.once.Do(t.gate.leave)
	return t.Tx.Commit()
}

func (t *gatedTx) Rollback() error {
	defer t.once.Do(t.gate.leave)
	return t.Tx.Rollback()
}
