package sqlite

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"

	msqlite "modernc.org/sqlite"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/jsonl"
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
// A statement is anyone's input (pidex sql, MCP's query_sql), so they
// read only what the catalog itself points at: a file the catalog of an
// open SQLConn knows as a session, at the offset of one of its entries,
// for the entry's stored length. Any other path is refused with the same
// words whether it exists or not, so a statement cannot probe the disk; a
// FIFO or device is never read (not opened blocking, then refused), and
// no read is longer than MaxEntryLine, so a call is bounded in memory and
// time. Both raise an error, never other bytes, when the file changed
// since it was indexed: its size or mtime differ from the catalog's, the
// offset is not at a line start or the line is not the stored length, or
// the line is not a JSON object.
func init() {
	// pidex_rank(tokens, avgdl, terms): a search match's score from the
	// entry's size in tokens (text_sizes.n), see fts.Rank.
	msqlite.MustRegisterDeterministicScalarFunction("pidex_rank", 3, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		avgdl, _ := args[1].(float64)
		terms, _ := args[2].(int64)
		d := avgdl
		if n, ok := args[0].(int64); ok {
			d = float64(n)
		}
		return fts.Rank(int(terms), d, avgdl), nil
	})
	msqlite.MustRegisterScalarFunction("entry_json", -1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		b, err := entryLine("entry_json", args, false)
		if err != nil || b == nil {
			return nil, err
		}
		return string(b), nil
	})
	msqlite.MustRegisterScalarFunction("entry_text", -1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		b, err := entryLine("entry_text", args, true)
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

// MaxEntryLine is the longest line entry_json returns: a longer one is an
// error saying its size (pidex show --json reads it whole), and
// entry_text reads it as show does, cut (its strings keep their first
// cutString bytes), so that one huge tool result cannot make a statement
// hold hundreds of megabytes per row.
const MaxEntryLine = 16 << 20

// cutString is what each string of a line over MaxEntryLine keeps for
// entry_text.
const cutString = 64 << 10

// sqlFile is what the catalog recorded for a session file: its id, and
// the size and mtime the changed-file check compares.
type sqlFile struct {
	id, size, mtime int64
}

// sqlConns are the SQLConns open in this process. A SQL function cannot
// tell which connection called it, so it asks each (usually one) whether
// its catalog knows the path.
var sqlConns struct {
	sync.Mutex
	open []*SQLConn
}

func register(c *SQLConn) {
	sqlConns.Lock()
	defer sqlConns.Unlock()
	sqlConns.open = append(sqlConns.open, c)
}

func unregister(c *SQLConn) {
	sqlConns.Lock()
	defer sqlConns.Unlock()
	sqlConns.open = slices.DeleteFunc(sqlConns.open, func(o *SQLConn) bool { return o == c })
}

// knowing returns the open SQLConns whose catalog knows path as a session.
func knowing(path string) []*SQLConn {
	sqlConns.Lock()
	defer sqlConns.Unlock()
	var out []*SQLConn
	for _, c := range sqlConns.open {
		if _, ok := c.files[path]; ok {
			out = append(out, c)
		}
	}
	return out
}

// errNotSession is the one answer for every path the catalog does not
// know, whether or not it exists.
func errNotSession(fn string) error {
	return fmt.Errorf("%s: not a session file of the catalog (entry_json and entry_text read only the files and offsets of entries_v)", fn)
}

func entryLine(fn string, args []driver.Value, cut bool) ([]byte, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, fmt.Errorf("%s takes (path, offset [, length])", fn)
	}
	if args[0] == nil || args[1] == nil {
		return nil, nil // NULL in, NULL out (a call without a result, say)
	}
	path, ok := args[0].(string)
	off, ok2 := args[1].(int64)
	if !ok || !ok2 || off < 0 {
		return nil, fmt.Errorf("%s: want (path text, offset integer)", fn)
	}
	given := int64(-1)
	if len(args) == 3 && args[2] != nil {
		if given, ok = args[2].(int64); !ok {
			return nil, fmt.Errorf("%s: length must be an integer", fn)
		}
	}
	conns := knowing(path)
	if len(conns) == 0 {
		return nil, errNotSession(fn)
	}
	f, err := files.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", fn, path, pidex.ErrFileChanged)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: stat %s: %w", fn, path, err)
	}
	var c *SQLConn
	var sf sqlFile
	for _, k := range conns {
		if s := k.files[path]; fi.Size() == s.size && fi.ModTime().UnixNano() == s.mtime {
			c, sf = k, s
			break
		}
	}
	if c == nil {
		return nil, fmt.Errorf("%s: %s: %w", fn, path, pidex.ErrFileChanged)
	}
	length, known, err := c.entryLength(sf.id, off)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	if !known {
		return nil, fmt.Errorf("%s: %s has no entry at offset %d (the offsets of entries_v are its entries')", fn, path, off)
	}
	if given >= 0 && given != length {
		return nil, fmt.Errorf("%s: the entry at offset %d of %s is %d bytes, not %d", fn, off, path, length, given)
	}
	if length > MaxEntryLine && !cut {
		return nil, fmt.Errorf("%s: the entry at offset %d of %s is a %.1f MiB line, over the %d MiB entry_json reads (pidex show --json reads it whole)",
			fn, off, path, float64(length)/(1<<20), MaxEntryLine>>20)
	}
	return readCatalogLine(f, path, off, length, cut)
}

// readCatalogLine reads the line the catalog stored at off with length
// bytes (a CR before the newline included, as the indexer counts it), and
// checks that it is still that line: the byte before it ends a line, the
// one after it ends the line or the file, and it is a JSON object. The CR
// is not returned. A line over MaxEntryLine, when cut, is read as a
// stream into a cut copy.
func readCatalogLine(f *os.File, path string, off, length int64, cut bool) ([]byte, error) {
	changed := func(what string) error {
		return fmt.Errorf("%s: %s at offset %d: %w", path, what, off, pidex.ErrFileChanged)
	}
	if off > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], off-1); err != nil || prev[0] != '\n' {
			return nil, changed("not a line start")
		}
	}
	var next [1]byte
	if n, err := f.ReadAt(next[:], off+length); (n == 1 && next[0] != '\n') || (n == 0 && !errors.Is(err, io.EOF)) {
		return nil, changed("not the line of the stored length")
	}
	if length > MaxEntryLine && cut {
		b, err := jsonl.Shrink(io.NewSectionReader(f, off, length), cutString, 4*cutString)
		if err != nil {
			return nil, changed("not a JSON object")
		}
		return b, nil
	}
	line := make([]byte, length)
	if _, err := f.ReadAt(line, off); err != nil {
		return nil, changed("not the line of the stored length")
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	if l, _ := schema.DecodeLine(line); l == nil {
		return nil, changed("not a JSON object")
	}
	return line, nil
}

// maxCachedEntries bounds the entry offsets a SQLConn keeps (16 bytes
// each): a statement over every entry reads each file's offsets once.
const maxCachedEntries = 1 << 20

type entrySpan struct{ off, length int64 }

// entryLength returns the stored length of the entry at off in file id,
// and whether there is one. Offsets are read per file, on a connection of
// their own (the statement's is busy running the call), and kept.
func (c *SQLConn) entryLength(id, off int64) (int64, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	spans, ok := c.offsets[id]
	if !ok {
		rows, err := c.db.QueryContext(context.Background(), "SELECT offset, length FROM entries WHERE file_id = ? ORDER BY offset", id)
		if err != nil {
			return 0, false, fmt.Errorf("read entry offsets: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var s entrySpan
			if err := rows.Scan(&s.off, &s.length); err != nil {
				return 0, false, fmt.Errorf("read entry offsets: %w", err)
			}
			spans = append(spans, s)
		}
		if err := rows.Err(); err != nil {
			return 0, false, fmt.Errorf("read entry offsets: %w", err)
		}
		if c.cached+len(spans) > maxCachedEntries {
			c.offsets, c.cached = map[int64][]entrySpan{}, 0
		}
		c.offsets[id], c.cached = spans, c.cached+len(spans)
	}
	i := sort.Search(len(spans), func(i int) bool { return spans[i].off >= off })
	if i == len(spans) || spans[i].off != off {
		return 0, false, nil
	}
	return spans[i].length, true, nil
}
