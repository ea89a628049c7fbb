package store

import (
	"context"
	"database/sql"
	"fmt"
)

// QueryReadOnly runs one SQL query in a read-only transaction and calls
// row for the header and then each row, values rendered as text. It backs
// `feedpoller sql`: people query their content without a separate client,
// and nothing they type can change it.
func (s *Store) QueryReadOnly(ctx context.Context, query string, row func([]string) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("query: connect: %w", err)
	}
	defer conn.Close()
	if s.dialect == SQLite {
		if _, err := conn.ExecContext(ctx, `PRAGMA query_only = ON`); err != nil {
			return fmt.Errorf("query: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA query_only = OFF`)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("query: begin: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := row(cols); err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("query: %w", err)
		}
		out := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				out[i] = "NULL"
			case []byte:
				out[i] = string(x)
			default:
				out[i] = fmt.Sprint(x)
			}
		}
		if err := row(out); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return nil
}
