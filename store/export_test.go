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

// Searching runs a statement under the search guard (deadline and slots).
func (s *Store) Searching(ctx context.Context, run func(ctx context.Context) error) error {
	return s.searching(ctx, run)
}

// SearchBytesExamined is how many bytes of text search snippets were
// built from since the store was opened.
func (s *Store) SearchBytesExamined() int64 { return s.searchExamined.Load() }
