// Package sqlcode classifies SQLite errors by their result code, never by
// their message text.
package sqlcode

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Primary result codes pidex tells apart.
const (
	Busy      = sqlite3.SQLITE_BUSY
	ReadOnly  = sqlite3.SQLITE_READONLY
	Interrupt = sqlite3.SQLITE_INTERRUPT
	Corrupt   = sqlite3.SQLITE_CORRUPT
	CantOpen  = sqlite3.SQLITE_CANTOPEN
	Auth      = sqlite3.SQLITE_AUTH
	NotADB    = sqlite3.SQLITE_NOTADB
)

// Of is the primary result code of the SQLite error in err's chain (the
// extended code's low byte), or 0 when there is none.
func Of(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// Is reports whether err carries one of the primary codes.
func Is(err error, codes ...int) bool {
	c := Of(err)
	for _, x := range codes {
		if c != 0 && c == x {
			return true
		}
	}
	return false
}
