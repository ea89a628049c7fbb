package store

import (
	"errors"

	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

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
// class (PostgreSQL) and primary result code (SQLite), never by message.
func IsDataError(err error) bool {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return dataClasses[string(pe.Code.Class())]
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CONSTRAINT, // UNIQUE, CHECK, NOT NULL, FOREIGN KEY, RAISE() in a trigger
			sqlite3.SQLITE_TOOBIG,   // a string or blob over the length limit
			sqlite3.SQLITE_MISMATCH: // a value of the wrong type
			return true
		}
	}
	return false
}

// dataClasses are the SQLSTATE classes a statement's values can cause.
// Among the rest: 08 connection exception, 53 insufficient resources
// (disk full, out of memory, too many connections), 57 operator
// intervention (shutdown, statement cancelled), 58 system error (I/O),
// 25 invalid transaction state (25006: read-only transaction), 40
// transaction rollback (serialization failure, deadlock), 42 syntax error
// or access rule violation (missing table or privilege), XX internal error.
var dataClasses = map[string]bool{
	"22": true, // data exception: invalid byte sequence, value too long, out of range, bad datetime
	"23": true, // integrity constraint violation
	"54": true, // program limit exceeded: index row too big, too many columns
	"2F": true, // SQL routine exception (a function called by a trigger)
	"38": true, // external routine exception
	"39": true, // external routine invocation exception
	"P0": true, // PL/pgSQL RAISE, e.g. in a trigger
}
