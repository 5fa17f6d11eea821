package sqlite

// SQLite errors are classified by their result code, never by their
// message text.

import (
	"errors"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Primary result codes pidex tells apart.
const (
	CodeBusy      = sqlite3.SQLITE_BUSY
	CodeReadOnly  = sqlite3.SQLITE_READONLY
	CodeInterrupt = sqlite3.SQLITE_INTERRUPT
	CodeCorrupt   = sqlite3.SQLITE_CORRUPT
	CodeCantOpen  = sqlite3.SQLITE_CANTOPEN
	CodeAuth      = sqlite3.SQLITE_AUTH
	CodeNotADB    = sqlite3.SQLITE_NOTADB
)

// ErrCode is the primary result code of the SQLite error in err's chain (the
// extended code's low byte), or 0 when there is none.
func ErrCode(err error) int {
	var se *msqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// IsCode reports whether err carries one of the primary codes.
func IsCode(err error, codes ...int) bool {
	c := ErrCode(err)
	for _, x := range codes {
		if c != 0 && c == x {
			return true
		}
	}
	return false
}
