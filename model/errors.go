package model

import "errors"

// ErrLeaseLost is returned by SavePoll when the source is no longer leased
// to the poll's owner (the lease ran out, or the source was deleted):
// nothing of the poll is stored, so two polls of one source never both
// count.
var ErrLeaseLost = errors.New("lease lost before the poll was saved")

// ErrLeased is returned when a source is being polled by someone else.
var ErrLeased = errors.New("source is being polled right now")

// ErrNotFound is returned when a row does not exist (or is not visible to
// the workspace asking).
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a unique constraint refuses a write.
var ErrConflict = errors.New("already exists")

// ErrDeliveryLeaseLost is what the outbox's Mark* return when owner no
// longer holds the delivery's lease (it ran out and another worker claimed
// it) or the row is already delivered or failed: the record is not
// written, and the worker moves on.
var ErrDeliveryLeaseLost = errors.New("webhook delivery lease lost")

// ErrLimit is returned when a create would exceed a per-workspace limit
// (the webhooks of a workspace).
var ErrLimit = errors.New("limit reached")

// ErrLastAdmin is returned for revoking the last live admin token that
// may write, where that is refused.
var ErrLastAdmin = errors.New("the last admin token that may write")

// ErrSearchTimeout is a full-text search stopped at its deadline.
var ErrSearchTimeout = errors.New("the search ran longer than its deadline and was stopped")

// ErrSearchBusy is a full-text search that found every search slot taken
// until its deadline.
var ErrSearchBusy = errors.New("too many searches are running at once")

// ErrRefusedData marks an error for which the database refused the values
// a statement carried (a malformed or out-of-range value, a constraint, a
// value too big for a column or an index), as opposed to the database's
// own state (gone, full, read-only). It repeats on every retry of the same
// data, so a poll that hits it is that source's failure. Test for it with
// errors.Is; the store marks its errors with RefusedData.
var ErrRefusedData = errors.New("the database refused the data")

// RefusedData marks err as ErrRefusedData, keeping its message.
func RefusedData(err error) error { return refusedData{err} }

type refusedData struct{ error }

func (e refusedData) Unwrap() []error { return []error{e.error, ErrRefusedData} }
