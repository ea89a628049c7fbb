package store

import (
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/dberr"
)

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
