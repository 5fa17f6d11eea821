package postgres

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
)

// Reader is the team catalog's side of the read layer (query.Backend):
// every machine's sessions side by side, its rows through the store's
// pool in PostgreSQL's dialect, the search rows (tsvector) as its text
// index, entry lines from entry_lines (the session files are on the
// machines). Its methods are safe for concurrent use.
type Reader struct {
	s    *Store
	o    ReaderOptions
	memo *newestMemo // a search's newest matches, from its totals to its page
}

var _ query.Backend = (*Reader)(nil)

// ReaderOptions tune a Reader, as sqlite.ReaderOptions tune a local
// catalog's. Zero values pick the defaults.
type ReaderOptions struct {
	// ConfirmBudget: how many bytes of lines a phrase's totals read to
	// confirm its candidates (query.ConfirmBudget; tests lower it).
	ConfirmBudget int64
	// FirstBatch: how many of the newest files a common word's search
	// reads first (newestBatch; tests lower it to search in many batches).
	FirstBatch int
}

// Reader returns the store's reader.
func (s *Store) Reader() *Reader { return s.ReaderWith(ReaderOptions{}) }

// ReaderWith returns the store's reader tuned by o.
func (s *Store) ReaderWith(o ReaderOptions) *Reader {
	if o.ConfirmBudget == 0 {
		o.ConfirmBudget = query.ConfirmBudget
	}
	if o.FirstBatch <= 0 {
		o.FirstBatch = newestBatch
	}
	return &Reader{s: s, o: o, memo: &newestMemo{}}
}

// Rows is the store's pool.
func (r *Reader) Rows() *sqlx.DB { return r.s.db }

// Dialect is PostgreSQL's, with machines.
func (r *Reader) Dialect() query.Dialect { return query.Postgres }

// Sessions runs p's statement: a team catalog keeps no listing cache.
func (r *Reader) Sessions(ctx context.Context, p *query.ListPlan) ([]*query.SessionRow, int, error) {
	return query.RunSessions(ctx, r.s.db, query.Postgres, p)
}

// Kept: a team catalog keeps no previews (its lines are a statement away)
// and no machine's blobs.
func (r *Reader) Kept(pidex.SessionRef) query.Kept { return query.Kept{} }

// chunk is how much of a long line one statement reads: a line to be cut
// is streamed (jsonl.Shrink) rather than held whole.
const chunk = 8 << 20

// linesSQL reads whole lines of a file by their offsets, lineChunkSQL a
// piece of one (from, length, file, offset): the file named by its id and
// machine (query.Dialect.FileIs), so that the lookup uses the key.
var (
	linesSQL     = sqlx.Rebind(sqlx.DOLLAR, `SELECT "offset", raw FROM entry_lines l WHERE `+query.Postgres.FileIs("l")+` AND "offset" = ANY(?)`)
	lineChunkSQL = sqlx.Rebind(sqlx.DOLLAR, `SELECT substring(raw FROM ? FOR ?) FROM entry_lines l WHERE `+query.Postgres.FileIs("l")+` AND "offset" = ?`)
)

// Lines reads the given entries' lines from entry_lines.
// A line longer than maxLine is read a chunk at a time into the cut, so
// that memory stays bounded as it does with a local file.
func (r *Reader) Lines(ctx context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	where := ref.Path
	if ref.Machine != "" {
		where = ref.Machine + ":" + ref.Path
	}
	var whole []int64
	for _, e := range rows {
		if !(maxLine > 0 && e.Length > maxLine) {
			whole = append(whole, e.Offset)
		}
	}
	raw := make(map[int64][]byte, len(whole))
	if len(whole) > 0 {
		q, err := r.s.db.QueryContext(ctx, linesSQL, ref.FileID, whole)
		if err != nil {
			return nil, fmt.Errorf("read entry lines: %w", err)
		}
		for q.Next() {
			var off int64
			var b []byte
			if err := q.Scan(&off, &b); err != nil {
				q.Close()
				return nil, fmt.Errorf("read entry lines: %w", err)
			}
			raw[off] = b
		}
		q.Close()
		if err := q.Err(); err != nil {
			return nil, fmt.Errorf("read entry lines: %w", err)
		}
	}
	out := make([]pi.Entry, len(rows))
	for i, e := range rows {
		var err error
		if maxLine > 0 && e.Length > maxLine {
			out[i], err = pi.Decode(e, &lineReader{ctx: ctx, r: r, file: ref.FileID, off: e.Offset}, true, maxString, where)
		} else if b, ok := raw[e.Offset]; ok {
			out[i], err = pi.DecodeBytes(e, b, false, where)
		} else {
			err = fmt.Errorf("read %s line %d: not in the team catalog: %w", where, e.Line, pidex.ErrFileChanged)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lineReader streams one entry's line out of entry_lines, a chunk per
// statement.
type lineReader struct {
	ctx  context.Context
	r    *Reader
	file int64
	off  int64
	pos  int64 // bytes of the line read so far
	buf  *bytes.Reader
	eof  bool
}

func (l *lineReader) Read(p []byte) (int, error) {
	for l.buf == nil || l.buf.Len() == 0 {
		if l.eof {
			return 0, io.EOF
		}
		var b []byte
		err := l.r.s.db.QueryRowContext(l.ctx, lineChunkSQL, l.pos+1, chunk, l.file, l.off).Scan(&b)
		if err != nil {
			return 0, fmt.Errorf("read entry line: %w", err)
		}
		l.pos += int64(len(b))
		l.eof = len(b) < chunk
		l.buf = bytes.NewReader(b)
	}
	return l.buf.Read(p)
}
