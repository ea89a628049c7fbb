package store

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/jmoiron/sqlx"
)

// inQuery expands slice arguments of an IN (?) query.
func inQuery(query string, args ...any) (string, []any, error) {
	q, a, err := sqlx.In(query, args...)
	if err != nil {
		return "", nil, fmt.Errorf("expand query arguments: %w", err)
	}
	return q, a, nil
}

// byID is the outcome of a write to one row named by its id: the
// statement's error wrapped with what was being done ("update source"),
// else ErrNotFound when no row matched (what: "source").
func byID(res sql.Result, err error, doing, what string, id int64) error {
	if err != nil {
		return fmt.Errorf("%s %d: %w", doing, id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s %d: %w", what, id, model.ErrNotFound)
	}
	return nil
}

// orSentinel keeps IN lists non-empty: sqlx.In refuses empty slices, and a
// value no row holds matches nothing.
func orSentinel(vals []string) []string {
	if len(vals) == 0 {
		return []string{"feedpoller:none"}
	}
	return vals
}

// multiRowInsert is head, then rows groups of columns placeholders, then
// tail: one INSERT for a whole batch, so that the statements of a poll do
// not grow with its items.
func multiRowInsert(head string, columns, rows int, tail string) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", columns), ", ") + ")"
	var sb strings.Builder
	sb.Grow(len(head) + rows*(len(row)+2) + len(tail))
	sb.WriteString(head)
	for i := range rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(row)
	}
	sb.WriteString(tail)
	return sb.String()
}
