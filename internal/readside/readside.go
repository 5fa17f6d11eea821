// Package readside is the part of pidex's read side that is not SQL,
// shared by both backends (package query over the local SQLite catalog,
// package postgres over a team catalog in PostgreSQL): the context rebuild
// from an entry's lines, previews, tree building, the session listing's
// sort rules, snippets, bm25 as FTS5 computes it, and the folding of cost
// sums into zone days and report rows. A backend fetches rows; what they
// mean is computed here once, so both answer alike.
//
// Entry lines come from wherever the backend keeps them: the session
// files for SQLite, the entry_lines table for PostgreSQL (see Lines).
package readside

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/jsonl"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// Lines reads entries' lines back, decoded.
type Lines interface {
	// Lines returns the given entries of one session with their lines
	// decoded, in the order given. A line longer than maxLine bytes (0: no
	// limit) is read as a stream and kept cut (Cut: its strings keep
	// maxString bytes, see jsonl.Shrink), so that memory does not grow with
	// the longest line. A line that is not the entry the catalog says
	// (the file changed since it was indexed) is pidex.ErrFileChanged.
	Lines(ctx context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error)
}

// CutBudget: a cut copy of a line holds about this many bytes (see
// jsonl.Shrink).
const CutBudget = 64 << 10

// Decode reads one entry's line from r (length bytes, or cut: see
// Lines) and decodes it. where names the line in errors.
func Decode(row pidex.Entry, r io.Reader, cut bool, maxString int, where string) (pi.Entry, error) {
	var buf []byte
	var err error
	if cut {
		buf, err = jsonl.Shrink(r, maxString, CutBudget)
	} else {
		buf = make([]byte, row.Length)
		_, err = io.ReadFull(r, buf)
	}
	if err != nil {
		return pi.Entry{}, fmt.Errorf("read %s line %d: %w: %w", where, row.Line, err, pidex.ErrFileChanged)
	}
	return DecodeBytes(row, buf, cut, where)
}

// DecodeBytes decodes a line already read (cut or whole).
func DecodeBytes(row pidex.Entry, buf []byte, cut bool, where string) (pi.Entry, error) {
	l, err := schema.DecodeLineFast(buf)
	if l == nil {
		return pi.Entry{}, fmt.Errorf("read %s line %d: %v: %w", where, row.Line, err, pidex.ErrFileChanged)
	}
	return pi.Entry{Entry: row, Raw: buf, Decoded: l, Cut: cut}, nil
}

// DecodeRaw decodes a whole line held in memory, cutting it as Lines
// says when it is longer than maxLine.
func DecodeRaw(row pidex.Entry, raw []byte, maxLine int64, maxString int, where string) (pi.Entry, error) {
	if maxLine > 0 && int64(len(raw)) > maxLine {
		return Decode(row, bytes.NewReader(raw), true, maxString, where)
	}
	return DecodeBytes(row, raw, false, where)
}

// Previews summarises the given entries of a session in one line each
// (pi.Preview), by entry offset: the text of tree views. A line longer
// than PreviewMaxLine is not read (a 200 MB tool result would cost a
// gigabyte to decode for a one-line preview): its preview gives its size.
//
// A src that keeps previews (PreviewStore) gives them without reading a
// line: the tree of a 50 MB session without decoding it.
func Previews(ctx context.Context, src Lines, ref pidex.SessionRef, rows []pidex.Entry) (map[int64]string, error) {
	out := make(map[int64]string, len(rows))
	var kept map[int64]KeptPreview
	if ps, ok := src.(PreviewStore); ok {
		var err error
		if kept, err = ps.StoredPreviews(ctx, ref); err != nil {
			return nil, err
		}
	}
	small := rows[:0:0]
	for _, r := range rows {
		if r.Length > PreviewMaxLine {
			out[r.Offset] = fmt.Sprintf("[%.1f MB line, not previewed]", float64(r.Length)/(1<<20))
			continue
		}
		if p, ok := kept[r.Offset]; ok && p.Length == r.Length {
			out[r.Offset] = p.Text
			continue
		}
		small = append(small, r)
	}
	// In chunks, so that memory stays bounded by the chunk, not the session.
	for start := 0; start < len(small); start += 256 {
		es, err := src.Lines(ctx, ref, small[start:min(start+256, len(small))], PreviewCutLine, PreviewCutString)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			out[e.Offset] = pi.Preview(e.Decoded)
		}
	}
	return out, nil
}

// A line longer than PreviewCutLine is cut (jsonl.Shrink: strings kept to
// PreviewCutString bytes) before it is decoded for its preview, which
// needs only its first 400 characters (at most 1,600 bytes, before white
// space is folded): decoding a 50 MB session whole for its 9,186 previews
// took 1.5 s.
const (
	PreviewCutLine   = 4 << 10
	PreviewCutString = 2 << 10
)

// PreviewMaxLine is the longest line Previews reads.
const PreviewMaxLine = 1 << 20
