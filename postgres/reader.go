package postgres

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
)

// Reader is the team catalog's side of the read layer (query.Backend):
// every machine's sessions side by side, its rows through the store's
// pool in PostgreSQL's dialect, the search rows (tsvector) as its text
// index, entry lines from line_chunks (the session files are on the
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

// chunksSQL reads the chunks (linechunks.go) that hold lines of a file at
// the given offsets (offsets, file, file, offsets), each the chunk with
// the greatest first offset not after the line's: one probe of the key per
// offset, then the chunks by key, each once, and of each only its bytes up
// to the end of the last line asked for (a line too long to read whole,
// which a chunk always ends with, is left out: PostgreSQL decompresses a
// value's slice no further than its end). spanSQL finds where one line
// is in its chunk (file, offset, offset), pieceSQL reads a piece of a
// chunk (from, length, file, chunk). The file is named by its id and
// machine (query.Dialect.FileIs), so that the lookups use the key.
var (
	chunksSQL = sqlx.Rebind(sqlx.DOLLAR, `SELECT offsets, ends, substring(raw FROM 1 FOR (SELECT max(ends[i])
			FROM generate_subscripts(offsets, 1) i WHERE offsets[i] = ANY(?::bigint[])))
		FROM line_chunks l WHERE `+query.Postgres.FileIs("l")+`
		AND l."offset" = ANY(ARRAY(SELECT (SELECT x."offset" FROM line_chunks x WHERE `+query.Postgres.FileIs("x")+`
			AND x."offset" <= o ORDER BY x."offset" DESC LIMIT 1) FROM unnest(?::bigint[]) o))`)
	spanSQL = sqlx.Rebind(sqlx.DOLLAR, `SELECT "offset", offsets, ends FROM line_chunks l WHERE `+query.Postgres.FileIs("l")+`
		AND "offset" <= ? ORDER BY "offset" DESC LIMIT 1`)
	pieceSQL = sqlx.Rebind(sqlx.DOLLAR, `SELECT substring(raw FROM ? FOR ?) FROM line_chunks l WHERE `+query.Postgres.FileIs("l")+` AND "offset" = ?`)
)

// Lines reads the given entries' lines from their chunks.
// A line longer than maxLine is read a piece at a time into the cut, so
// that memory stays bounded as it does with a local file.
func (r *Reader) Lines(ctx context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	where := ref.Path
	if ref.Machine != "" {
		where = ref.Machine + ":" + ref.Path
	}
	want := map[int64]bool{}
	var whole []int64
	for _, e := range rows {
		if !(maxLine > 0 && e.Length > maxLine) {
			whole = append(whole, e.Offset)
			want[e.Offset] = true
		}
	}
	raw, err := r.chunkLines(ctx, ref.FileID, whole, want)
	if err != nil {
		return nil, err
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

// chunkLines reads the lines at offsets (those want names) out of the
// chunks that hold them.
func (r *Reader) chunkLines(ctx context.Context, file int64, offsets []int64, want map[int64]bool) (map[int64][]byte, error) {
	raw := make(map[int64][]byte, len(offsets))
	if len(offsets) == 0 {
		return raw, nil
	}
	q, err := r.s.db.QueryContext(ctx, chunksSQL, offsets, file, file, offsets)
	if err != nil {
		return nil, fmt.Errorf("read entry lines: %w", err)
	}
	defer q.Close()
	m := pgtype.NewMap()
	for q.Next() {
		var offs []int64
		var ends []int32
		var b []byte
		if err := q.Scan(m.SQLScanner(&offs), m.SQLScanner(&ends), &b); err != nil {
			return nil, fmt.Errorf("read entry lines: %w", err)
		}
		if err := linesOf(raw, want, offs, ends, b); err != nil {
			return nil, fmt.Errorf("read entry lines: %w", err)
		}
	}
	if err := q.Err(); err != nil {
		return nil, fmt.Errorf("read entry lines: %w", err)
	}
	return raw, nil
}

// lineReader streams one entry's line out of its chunk, a piece per
// statement.
type lineReader struct {
	ctx  context.Context
	r    *Reader
	file int64
	off  int64
	// found: the line's chunk (its first offset) and where the line is
	// in it; pos is the next byte of the chunk to read.
	found           bool
	chunk, pos, end int64
	buf             *bytes.Reader
}

// locate finds the line's chunk and span.
func (l *lineReader) locate() error {
	var offs []int64
	var ends []int32
	m := pgtype.NewMap()
	err := l.r.s.db.QueryRowContext(l.ctx, spanSQL, l.file, l.off).Scan(&l.chunk, m.SQLScanner(&offs), m.SQLScanner(&ends))
	if err != nil {
		return fmt.Errorf("read entry line: %w", err)
	}
	start, end, ok := span(offs, ends, l.off)
	if !ok {
		return fmt.Errorf("read entry line: no line at offset %d: %w", l.off, pidex.ErrFileChanged)
	}
	l.found, l.pos, l.end = true, start, end
	return nil
}

func (l *lineReader) Read(p []byte) (int, error) {
	for l.buf == nil || l.buf.Len() == 0 {
		if !l.found {
			if err := l.locate(); err != nil {
				return 0, err
			}
		}
		if l.pos >= l.end {
			return 0, io.EOF
		}
		n := min(int64(chunk), l.end-l.pos)
		var b []byte
		err := l.r.s.db.QueryRowContext(l.ctx, pieceSQL, l.pos+1, n, l.file, l.chunk).Scan(&b)
		if err != nil {
			return 0, fmt.Errorf("read entry line: %w", err)
		}
		if int64(len(b)) != n {
			return 0, fmt.Errorf("read entry line: a chunk shorter than its ends say: %w", pidex.ErrFileChanged)
		}
		l.pos += n
		l.buf = bytes.NewReader(b)
	}
	return l.buf.Read(p)
}
