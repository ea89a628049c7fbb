package store

import (
	"fmt"

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

// orSentinel keeps IN lists non-empty: sqlx.In refuses empty slices, and a
// value no row holds matches nothing.
func orSentinel(vals []string) []string {
	if len(vals) == 0 {
		return []string{"feedpoller:none"}
	}
	return vals
}
