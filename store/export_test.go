package store

import "context"

// RunReadOnly hands a query to the read-only connection without the
// statement check, so tests can show the connection refuses writes by
// itself.
func RunReadOnly(ctx context.Context, r *ReadOnly, query string, row func([]string) error) error {
	return r.run(ctx, query, row)
}

// CheckReadQuery exposes the statement check to tests.
var CheckReadQuery = checkReadQuery
