package store

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/dberr"
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

// refused marks err with model.ErrRefusedData when the database refused
// the values a statement carried: a malformed or out-of-range value, a
// constraint or trigger that rejected a row, a value too big for a column
// or an index. Such an error is the data's problem and repeats on every
// retry of the same data, so a poll that hits one is that source's
// failure.
//
// Every other error (a lost connection, a full disk, a read-only or
// shut-down database, too many connections, a lock, a missing schema) is
// the database's state, not the data's: the work is redone once the
// database is back and nobody is blamed. Errors are told apart by SQLSTATE
// class (PostgreSQL) and result code (SQLite), never by message: see the
// dberr package, which the store and the migrations share. The methods a
// poll calls (KnownArticles, StoryCandidates, SavePoll, SavePush) mark
// their errors so.
func refused(err error) error {
	if err != nil && dberr.IsData(err) {
		return model.RefusedData(err)
	}
	return err
}
