// Package dberr tells database errors apart by the code the database
// attached to them: the SQLSTATE of a PostgreSQL error (lib/pq) and the
// extended result code of a SQLite error (modernc.org/sqlite), never the
// message text, which changes between versions, locales and drivers.
//
// It is the one classification of the store and of the migrations, a leaf
// package so that both can use it (the store imports the migrations).
//
//	question              PostgreSQL SQLSTATE               SQLite result code
//	IsData                class 22, 23, 54, 2F, 38, 39, P0  CONSTRAINT (any), TOOBIG, MISMATCH
//	IsUniqueViolation     23505 unique_violation            CONSTRAINT_UNIQUE, CONSTRAINT_PRIMARYKEY
//	IsUndefinedTable      42P01 undefined_table             none: SQLite says SQLITE_ERROR, as for a
//	                                                        syntax error (ask sqlite_master instead)
//	IsReadOnly            25006 read_only_sql_transaction   READONLY (any)
//	IsNotAuthorized       (none)                            AUTH (the authorizer denied it)
//	IsMultipleCommands    42601 raised by the server's      (none)
//	                      Parse message handler
//	IsRolledBack          class 40: 40001 serialization     (none: SQLite runs one writing
//	                      failure, 40P01 deadlock detected  transaction at a time)
package dberr

import (
	"errors"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// code is what the database attached to an error, in one shape for both
// databases: a SQLSTATE, or a SQLite extended result code (0: none).
type code struct {
	sqlstate pqerror.Code
	routine  string // the PostgreSQL server function that raised it
	sqlite   int
}

func codeOf(err error) code {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return code{sqlstate: pe.Code, routine: pe.Routine}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return code{sqlite: se.Code()}
	}
	return code{}
}

// primary is the SQLite primary result code: the low byte of the extended
// one (SQLITE_CONSTRAINT_UNIQUE is SQLITE_CONSTRAINT | 8<<8).
func (c code) primary() int { return c.sqlite & 0xff }

// IsData reports whether the database refused the values a statement
// carried: a malformed or out-of-range value, a constraint or trigger that
// rejected a row, a value too big for a column or an index. Such an error
// repeats on every retry of the same data.
//
// Every other error (a lost connection, a full disk, a read-only or
// shut-down database, too many connections, a lock, a missing schema) is
// the database's state, not the data's.
func IsData(err error) bool {
	c := codeOf(err)
	if c.sqlstate != "" {
		return dataClasses[c.sqlstate.Class()]
	}
	switch c.primary() {
	case sqlite3.SQLITE_CONSTRAINT, // UNIQUE, CHECK, NOT NULL, FOREIGN KEY, RAISE() in a trigger
		sqlite3.SQLITE_TOOBIG,   // a string or blob over the length limit
		sqlite3.SQLITE_MISMATCH: // a value of the wrong type
		return true
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
var dataClasses = map[pqerror.Class]bool{
	"22": true, // data exception: invalid byte sequence, value too long, out of range, bad datetime
	"23": true, // integrity constraint violation
	"54": true, // program limit exceeded: index row too big, too many columns
	"2F": true, // SQL routine exception (a function called by a trigger)
	"38": true, // external routine exception
	"39": true, // external routine invocation exception
	"P0": true, // PL/pgSQL RAISE, e.g. in a trigger
}

// IsUniqueViolation reports a row refused by a unique constraint or
// index (a primary key included): the value is taken.
func IsUniqueViolation(err error) bool {
	c := codeOf(err)
	return c.sqlstate == pqerror.UniqueViolation ||
		c.sqlite == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c.sqlite == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// IsUndefinedTable reports a statement naming a table that does not
// exist, on PostgreSQL. SQLite attaches no code of its own to that (it is
// SQLITE_ERROR, like a syntax error), so this is always false there: ask
// sqlite_master whether the table exists instead.
func IsUndefinedTable(err error) bool {
	return codeOf(err).sqlstate == pqerror.UndefinedTable
}

// IsReadOnly reports a write refused because the transaction, the
// connection or the database file is read-only.
func IsReadOnly(err error) bool {
	c := codeOf(err)
	return c.sqlstate == pqerror.ReadOnlySQLTransaction || c.primary() == sqlite3.SQLITE_READONLY
}

// IsNotAuthorized reports a statement that SQLite's authorizer callback
// refused while compiling it. SQLite reports a denied function call as a
// plain SQLITE_ERROR instead; the store's read-only connection notes its
// authorizer's denials itself for that.
func IsNotAuthorized(err error) bool {
	return codeOf(err).primary() == sqlite3.SQLITE_AUTH
}

// IsMultipleCommands reports PostgreSQL refusing a prepared statement that
// holds more than one command. The server raises it as a syntax error
// (42601) from its Parse message handler, which no syntax error in a
// single command comes from.
func IsMultipleCommands(err error) bool {
	c := codeOf(err)
	return c.sqlstate == pqerror.SyntaxError && c.routine == "exec_parse_message"
}

// IsRolledBack reports a transaction PostgreSQL aborted to let others
// through: a deadlock it broke by cancelling this one, or a serialization
// conflict. Nothing of the transaction is kept, and the same work done
// again usually succeeds, as the others it waited for have moved on.
func IsRolledBack(err error) bool {
	c := codeOf(err)
	return c.sqlstate != "" && c.sqlstate.Class() == "40"
}
