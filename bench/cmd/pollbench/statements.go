package main

import (
	"context"
	"fmt"
)

// statement is one normalised statement of the daemons as
// pg_stat_statements sums it over a round.
type statement struct {
	Calls     int64   `json:"calls" db:"calls"`
	TotalMS   float64 `json:"total_ms" db:"total_ms"`
	MSPerPoll float64 `json:"ms_per_poll" db:"-"`
	Rows      int64   `json:"rows" db:"rows"`
	// Blocks is the shared buffers the statement read (hits and
	// reads): its work, where its time also counts waits for a CPU.
	Blocks int64  `json:"blocks" db:"blocks"`
	Query  string `json:"query" db:"query"`
}

// daemonStatements selects the run database's statements in
// pg_stat_statements that the daemons sent: the benchmark tags its own
// with a pollbench comment.
const daemonStatements = `FROM pg_stat_statements
	WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND query NOT LIKE '%pollbench%' AND query NOT LIKE '%pg_stat_statements%'`

// resetStatements forgets what pg_stat_statements holds for the run's
// database (PostgreSQL only), so the next read is one round's.
func (r *run) resetStatements(ctx context.Context) error {
	if r.pgPID == 0 {
		return nil
	}
	_, err := r.st.DB().ExecContext(ctx, `SELECT /* pollbench */ pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`)
	if err != nil {
		return fmt.Errorf("reset pg_stat_statements: %w", err)
	}
	return nil
}

// readStatements is the server's execution time of the daemons'
// statements since the reset, in milliseconds, and the r.statements most
// expensive of them (PostgreSQL only).
func (r *run) readStatements(ctx context.Context) (float64, []statement, error) {
	if r.pgPID == 0 {
		return 0, nil, nil
	}
	var total float64
	if err := r.st.DB().GetContext(ctx, &total, `SELECT /* pollbench */ COALESCE(SUM(total_exec_time), 0)::float8 `+daemonStatements); err != nil {
		return 0, nil, fmt.Errorf("read pg_stat_statements: %w", err)
	}
	if r.statements <= 0 {
		return total, nil, nil
	}
	var top []statement
	err := r.st.DB().SelectContext(ctx, &top, `SELECT /* pollbench */ calls, total_exec_time::float8 AS total_ms, rows,
		shared_blks_hit + shared_blks_read AS blocks,
		left(regexp_replace(query, '\s+', ' ', 'g'), 160) AS query `+daemonStatements+`
		ORDER BY total_exec_time DESC LIMIT $1`, r.statements)
	if err != nil {
		return 0, nil, fmt.Errorf("read pg_stat_statements: %w", err)
	}
	return total, top, nil
}
