package store

import "github.com/feedpoller/feedpoller/store/dberr"

// IsDataError reports whether the database refused the values a statement
// carried: a malformed or out-of-range value, a constraint or trigger that
// rejected a row, a value too big for a column or an index. Such an error
// is the data's problem and repeats on every retry of the same data, so a
// poll that hits one is that source's failure.
//
// Every other error (a lost connection, a full disk, a read-only or
// shut-down database, too many connections, a lock, a missing schema) is
// the database's state, not the data's: the work is redone once the
// database is back and nobody is blamed. Errors are told apart by SQLSTATE
// class (PostgreSQL) and result code (SQLite), never by message: see the
// dberr package, which the store and the migrations share.
func IsDataError(err error) bool { return dberr.IsData(err) }
