package query

import (
	"bufio"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"modernc.org/sqlite"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// SQL functions pidex adds to every connection to its catalog, so the
// views can show what the catalog does not store: the session files stay
// the source of truth.
//
//	entry_json(path, offset [, length])  the entry's JSON line, read back from the file
//	entry_text(path, offset [, length])  the entry's searchable text (pi.Text)
//
// Both raise an error, never other bytes, when the file changed since it
// was indexed: its size or mtime differ from the catalog's (when known),
// the offset is not at a line start, the line's length differs from the
// stored one, or the line is not a JSON object.
func init() {
	sqlite.MustRegisterScalarFunction("entry_json", -1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		b, err := entryLine(args)
		if err != nil || b == nil {
			return nil, err
		}
		return string(b), nil
	})
	sqlite.MustRegisterScalarFunction("entry_text", -1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		b, err := entryLine(args)
		if err != nil || b == nil {
			return nil, err
		}
		l, err := schema.DecodeLine(b)
		if l == nil {
			return nil, fmt.Errorf("entry_text: %w", err)
		}
		return pi.Text(l), nil
	})
}

// stamps holds the size and mtime the catalog recorded for each session
// file (loaded by OpenSQL), for the changed-file check.
var stamps sync.Map // path → [2]int64{size, mtime_ns}

func entryLine(args []driver.Value) ([]byte, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, errors.New("entry_json/entry_text take (path, offset [, length])")
	}
	path, ok := args[0].(string)
	if args[0] == nil || args[1] == nil {
		return nil, nil // NULL in, NULL out (a call without a result, say)
	}
	off, ok2 := args[1].(int64)
	if !ok || !ok2 || off < 0 {
		return nil, errors.New("entry_json/entry_text: want (path text, offset integer)")
	}
	length := int64(-1)
	if len(args) == 3 && args[2] != nil {
		if length, ok = args[2].(int64); !ok {
			return nil, errors.New("entry_json/entry_text: length must be an integer")
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read entry: %w", err)
	}
	defer f.Close()
	if st, ok := stamps.Load(path); ok {
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("read entry: %w", err)
		}
		if s := st.([2]int64); fi.Size() != s[0] || fi.ModTime().UnixNano() != s[1] {
			return nil, fmt.Errorf("%s: %w", path, pidex.ErrFileChanged)
		}
	}
	if off > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], off-1); err != nil || prev[0] != '\n' {
			return nil, fmt.Errorf("%s: offset %d is not a line start: %w", path, off, pidex.ErrFileChanged)
		}
	}
	line, err := readLine(f, off)
	if err != nil {
		return nil, fmt.Errorf("read entry: %w", err)
	}
	// The catalog's length counts a CR before the newline (the indexer
	// reads the line up to the LF), readLine drops it.
	if length >= 0 && int64(len(line)) != length && !(int64(len(line))+1 == length && crlf(f, off+length)) {
		return nil, fmt.Errorf("%s: the line at offset %d is %d bytes, the catalog says %d: %w", path, off, len(line), length, pidex.ErrFileChanged)
	}
	if l, _ := schema.DecodeLine(line); l == nil {
		return nil, fmt.Errorf("%s: the line at offset %d is not a JSON object: %w", path, off, pidex.ErrFileChanged)
	}
	return line, nil
}

// crlf reports whether the line ending at end (the catalog's length past
// its offset) ends with CR LF, or CR at the end of the file.
func crlf(f *os.File, end int64) bool {
	var b [2]byte
	n, _ := f.ReadAt(b[:], end-1)
	return n >= 1 && b[0] == '\r' && (n == 1 || b[1] == '\n')
}

// readLine reads from off to the end of the line (CR LF and a missing
// final newline tolerated, as the indexer reads).
func readLine(f *os.File, off int64) ([]byte, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 64<<10)
	line, err := r.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	return line, nil
}
