package postgres_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// Migration 00014 moves the lines already pushed into chunks, byte for
// byte, and its Down moves them back: lines of every size, a line over
// 64 KB among them, in two machines' files, with plain tables and with
// partitions.
func TestLinesIntoChunks(t *testing.T) {
	inLayouts(t, linesIntoChunks)
}

func linesIntoChunks(t *testing.T, partitions int) {
	ctx := context.Background()
	p, db := provider(t, partitions)
	if _, err := p.UpTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	exec(t, db, fixture)
	want := map[[2]int64][]byte{} // (file, offset) → line
	for _, file := range []int64{1, 4} {
		machine := map[int64]int64{1: 1, 4: 3}[file]
		off := int64(0)
		for i := range 400 {
			n := 1 + (i*7919)%900
			if i == 150 {
				n = 100 << 10 // over a chunk alone
			}
			line := bytes.Repeat([]byte{byte('a' + i%26)}, n)
			line[0] = 0xff // not UTF-8: the lines are bytes
			exec(t, db, `INSERT INTO entries (file_id, "offset", machine_id, length, line, seq, id, type) VALUES ($1, $2, $3, $4, $5, $5, $6, 'message')`,
				file, off, machine, n, i+1, fmt.Sprint(file, "-", i))
			exec(t, db, `INSERT INTO entry_lines (file_id, "offset", machine_id, raw) VALUES ($1, $2, $3, $4)`, file, off, machine, line)
			want[[2]int64{file, off}] = line
			off += int64(n) + 1
		}
	}
	check := func(when string) {
		t.Helper()
		rows, err := db.Query(`SELECT file_id, "offset", raw FROM entry_lines`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		seen := 0
		for rows.Next() {
			var k [2]int64
			var raw []byte
			if err := rows.Scan(&k[0], &k[1], &raw); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, want[k]) {
				t.Fatalf("%s: line %v is %d bytes, want %d", when, k, len(raw), len(want[k]))
			}
			seen++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if seen != len(want) {
			t.Fatalf("%s: %d lines, want %d", when, seen, len(want))
		}
	}
	check("before")
	if _, err := p.UpTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	check("in chunks")
	var chunks, big int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE length(raw) > 100 << 10) FROM line_chunks`).Scan(&chunks, &big); err != nil {
		t.Fatal(err)
	}
	// 400 lines of 450 bytes on average, and the long one: about four
	// chunks a file, the long line's longer than it.
	if chunks < 6 || chunks > 12 || big != 2 {
		t.Errorf("%d chunks, %d over 100 KB; want about 4 a file, one long each", chunks, big)
	}
	assertLine(t, db, 4, 0, want[[2]int64{4, 0}])
	if _, err := p.DownTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	check("after Down")
}

// assertLine reads one line through pidex_line.
func assertLine(t *testing.T, db *sql.DB, file, off int64, want []byte) {
	t.Helper()
	var got []byte
	if err := db.QueryRow(`SELECT pidex_line(f.machine_id, f.id, $2) FROM files f WHERE f.id = $1`, file, off).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("pidex_line(%d, %d) = %d bytes, want %d", file, off, len(got), len(want))
	}
}
