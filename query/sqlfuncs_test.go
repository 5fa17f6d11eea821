package query_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/sqlite"
)

// sqlOne runs a statement through pidex sql's connection and returns its
// first value.
func sqlOne(t *testing.T, e *searchEnv, stmt string, params map[string]string) (any, error) {
	t.Helper()
	c, err := sqlite.OpenSQL(context.Background(), e.ix.DB.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rc pidex.RowCollector
	err = c.Stream(context.Background(), stmt, params, &rc)
	r := &rc.Rows
	if err != nil {
		return nil, err
	}
	if len(r.Rows) == 0 {
		return nil, nil
	}
	return r.Rows[0][0], nil
}

// entry_json and entry_text read only what the catalog points at: its
// session files, at its entries' offsets, for their stored length. Any
// other file (a config file's JSON line, /dev/zero, a FIFO) is refused
// with words that do not say whether it exists; a session file that
// became a FIFO is not read (an open for reading would block); a line
// over MaxEntryLine is refused by entry_json and cut by entry_text.
func TestEntryFunctionsReadOnlyTheCatalogsEntries(t *testing.T) {
	e := newSearchEnv(t)
	p := e.file("--w--/a.jsonl", hdr("s1", "/w"), userMsg("u1", "", "hello", "2026-05-01T10:00:01.000Z"))
	huge := e.file("--w--/huge.jsonl", hdr("s2", "/w"),
		userMsg("h1", "", "big "+strings.Repeat("x", sqlite.MaxEntryLine+10), "2026-05-01T10:00:01.000Z"))
	e.refresh()
	hdrLen := int64(len(hdr("s1", "/w")) + 1)

	secret := filepath.Join(t.TempDir(), "config.json")
	catalogtest.WriteFile(t, secret, `{"api_key":"sk-secret"}`+"\n")
	notThere := filepath.Join(t.TempDir(), "missing.json")
	var refusal string
	for i, path := range []string{secret, notThere} {
		_, err := sqlOne(t, e, "SELECT entry_json(:p, 0)", map[string]string{"p": path})
		if err == nil {
			t.Fatalf("entry_json(%s, 0) read a file the catalog does not know", path)
		}
		msg := strings.ReplaceAll(err.Error(), path, "PATH")
		if i == 1 && msg != refusal {
			t.Errorf("the refusals say whether the path exists:\n%s\n%s", refusal, msg)
		}
		refusal = msg
	}
	if fifo := filepath.Join(t.TempDir(), "fifo.jsonl"); mkfifo(fifo) == nil {
		// A writer holds it open with a line waiting: a reader that opens
		// it gets the line at once (and would block without a writer).
		w, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.WriteString(`{"type":"message","id":"f"}` + "\n")
		if v, err := sqlOne(t, e, "SELECT entry_json(:p, 0)", map[string]string{"p": fifo}); err == nil {
			t.Fatalf("entry_json read a FIFO: %v", v)
		}
	}

	// The catalog's own entries read, for their stored length.
	if v, err := sqlOne(t, e, "SELECT json_extract(entry_json(:p, :o), '$.id')", map[string]string{"p": p, "o": itoa(hdrLen)}); err != nil || v != "u1" {
		t.Fatalf("entry_json of an entry: %v %v", v, err)
	}
	// Not at an entry's offset: the header (a JSON object, but no entry),
	// the middle of a line.
	for _, off := range []int64{0, hdrLen + 1} {
		if v, err := sqlOne(t, e, "SELECT entry_json(:p, :o)", map[string]string{"p": p, "o": itoa(off)}); err == nil {
			t.Errorf("entry_json at offset %d, not an entry's: %v", off, v)
		}
	}
	// Another length than the stored one.
	if _, err := sqlOne(t, e, "SELECT entry_json(:p, :o, 5)", map[string]string{"p": p, "o": itoa(hdrLen)}); err == nil {
		t.Error("entry_json with a length that is not the entry's")
	}

	// A line over the limit: entry_json says so, entry_text cuts it.
	if _, err := sqlOne(t, e, "SELECT entry_json(path, offset) FROM entries_v WHERE path = :p", map[string]string{"p": huge}); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("entry_json of a line over MaxEntryLine: %v, want an error saying its size", err)
	}
	v, err := sqlOne(t, e, "SELECT entry_text(path, offset) FROM entries_v WHERE path = :p", map[string]string{"p": huge})
	if s, _ := v.(string); err != nil || !strings.HasPrefix(s, "big xxx") || len(s) > 1<<20 {
		t.Errorf("entry_text of a line over MaxEntryLine: %d bytes (%v), want its start, cut", len(s), err)
	}

	// A session file replaced by a FIFO is not opened for reading.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if mkfifo(p) == nil {
		_, err := sqlOne(t, e, "SELECT entry_json(:p, :o)", map[string]string{"p": p, "o": itoa(hdrLen)})
		if !errors.Is(err, pidex.ErrStatement) || !strings.Contains(err.Error(), "changed since it was indexed") {
			t.Errorf("entry_json of a session file that became a FIFO: %v", err)
		}
	}
	if runtime.GOOS == "linux" { // last: before the fix this read until memory ran out
		if _, err := sqlOne(t, e, "SELECT entry_json('/dev/zero', 0)", nil); err == nil {
			t.Error("entry_json read /dev/zero")
		}
	}
}

// A CRLF session: the catalog's length counts the CR before each newline;
// the functions read that length and return the line without it.
func TestEntryFunctionsOnCRLF(t *testing.T) {
	e := newSearchEnv(t)
	src, err := os.ReadFile("../testdata/sessions/--home-ann-legacy--/2026-03-10T07-30-00-000Z_crlf.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\r\n") {
		t.Fatal("the CRLF fixture has no CRLF")
	}
	p := filepath.Join(e.root, "--w--", "crlf.jsonl")
	catalogtest.WriteFile(t, p, string(src))
	e.refresh()
	v, err := sqlOne(t, e, "SELECT group_concat(text, '|') FROM entries_v", nil)
	if s, _ := v.(string); err != nil || !strings.Contains(s, "CRLF") {
		t.Fatalf("text of a CRLF session: %q %v", s, err)
	}
	v, err = sqlOne(t, e, "SELECT group_concat(entry_json(path, offset, length), '|') FROM entries_v", nil)
	if s, _ := v.(string); err != nil || strings.Contains(s, "\r") {
		t.Errorf("entry_json of a CRLF session: %q %v", s, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
