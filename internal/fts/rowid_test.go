package fts

import (
	"testing"

	"github.com/jmoiron/sqlx"
)

// RowFileSQL, RowLineSQL and RowInFileSQL, evaluated by SQLite, agree
// with RowID: a file's first and last lines are in its range, its
// neighbours' are not.
func TestRowSQL(t *testing.T) {
	db, err := sqlx.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const file = 7
	last := int64(1)<<LineBits - 1
	for _, tc := range []struct {
		file, line int64
		in         bool
	}{{file, 1, true}, {file, last, true}, {file - 1, last, false}, {file + 1, 1, false}} {
		r, ok := RowID(tc.file, tc.line)
		if !ok {
			t.Fatalf("RowID(%d, %d) not ok", tc.file, tc.line)
		}
		var f, l int64
		var in bool
		err := db.QueryRow(`SELECT `+RowFileSQL("?1")+`, `+RowLineSQL("?1")+`, `+RowInFileSQL("?1", "?2"), r, file).Scan(&f, &l, &in)
		if err != nil {
			t.Fatal(err)
		}
		if f != tc.file || l != tc.line || in != tc.in {
			t.Errorf("rowid of file %d line %d: file %d, line %d, in file %d %v; want in %v", tc.file, tc.line, f, l, file, in, tc.in)
		}
	}
}
