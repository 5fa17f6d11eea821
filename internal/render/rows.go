package render

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/internal/text"
)

// Row formats of `pidex sql`.
const (
	FormatTable  = "table"
	FormatCSV    = "csv"
	FormatTSV    = "tsv"
	FormatJSON   = "json"
	FormatNDJSON = "ndjson"
)

// Rows writes a whole SQL result (piped: tsv, csv and json exact).
// maxRows > 0 caps a table and says how many rows were left out.
func Rows(w io.Writer, r *pidex.Rows, format string, maxRows int) error {
	rw := NewRowWriter(w, format, false, maxRows)
	err := rw.Columns(r.Columns)
	for _, row := range r.Rows {
		if err != nil {
			break
		}
		var more bool
		if more, err = rw.Row(row); !more {
			break
		}
	}
	return rw.End(err)
}

// RowWriter writes a statement's rows as they are read (a pidex.RowSink),
// so that a result of any size, an endless one too, prints as it goes in
// the memory of a few rows. On a terminal (tty) control characters in
// values are shown escaped in every format: csv and tsv cells as tables
// show them (Safe), JSON strings with C1 controls and DEL as \u escapes
// (TerminalJSON); piped, every format is exact.
type RowWriter struct {
	w       io.Writer
	format  string
	tty     bool
	maxRows int
	keys    [][]byte // JSON keys, encoded once
	n       int      // rows written (or buffered in the table)
	left    int      // rows counted past maxRows
	width   int      // a table's width in cells (0: as wide as it takes)
	table   *Table
	csv     *csv.Writer
	ew      *errWriter
}

// tableBlock: a table without a row cap (not on a terminal) is aligned in
// blocks of this many rows, so that it never holds a whole result.
const tableBlock = 1000

// countCap: past a terminal's screenful, rows are only counted, up to
// this many; then the statement is stopped (the rest is not computed).
const countCap = 10_000

// NewRowWriter starts writing rows in format (FormatTable, FormatTSV,
// FormatCSV, FormatJSON, FormatNDJSON). maxRows > 0 caps a table: the rows
// past it are counted (up to countCap) and said; other formats write
// every row.
func NewRowWriter(w io.Writer, format string, tty bool, maxRows int) *RowWriter {
	if tty && (format == FormatJSON || format == FormatNDJSON) {
		w = TerminalJSON(w)
	}
	return &RowWriter{w: w, format: format, tty: tty, maxRows: maxRows, ew: &errWriter{w: w}}
}

// Fit fits a table to width display cells (a terminal's); other formats
// are never cut.
func (rw *RowWriter) Fit(width int) *RowWriter {
	rw.width = width
	return rw
}

// Columns starts the output with the column names.
func (rw *RowWriter) Columns(cols []string) error {
	switch rw.format {
	case FormatCSV:
		rw.csv = csv.NewWriter(rw.w)
		return rw.csvRecord(cols)
	case FormatTSV:
		rw.tsvLine(cols)
	case FormatJSON, FormatNDJSON:
		rw.keys = make([][]byte, len(cols))
		for i, c := range cols {
			rw.keys[i] = append(js.JSONString(c), ':')
		}
		if rw.format == FormatJSON {
			rw.ew.str("[")
		}
	default:
		rw.table = NewTable(rw.w, true, cols...).Fit(rw.width)
	}
	return rw.ew.err
}

// Row writes one row (or counts it, past a table's cap); false: enough
// rows were read.
func (rw *RowWriter) Row(vals []any) (bool, error) {
	if rw.table != nil && rw.maxRows > 0 && rw.n == rw.maxRows {
		if rw.left == 0 { // the screenful is complete: show it now
			if err := rw.table.Flush(); err != nil {
				return false, err
			}
		}
		rw.left++
		return rw.left <= countCap, nil
	}
	rw.n++
	switch rw.format {
	case FormatCSV:
		rec := make([]string, len(vals))
		for i, v := range vals {
			rec[i] = cell(v)
		}
		return true, rw.csvRecord(rec)
	case FormatTSV:
		rec := make([]string, len(vals))
		for i, v := range vals {
			rec[i] = cell(v)
		}
		rw.tsvLine(rec)
	case FormatJSON, FormatNDJSON:
		rw.jsonRow(vals)
	default:
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = text.CutWidth(Safe(text.OneLine(cell(v))), 60)
		}
		rw.table.Row(cells...)
		if rw.maxRows == 0 && rw.n%tableBlock == 0 {
			if err := rw.table.Flush(); err != nil {
				return false, err
			}
		}
	}
	return true, rw.ew.err
}

// End finishes the output after the statement ended with err (nil: it
// read every row it wanted) and returns err, or the output's error. A
// failed statement keeps what was written, and a JSON array is left open:
// an output cut short never reads as a whole result.
func (rw *RowWriter) End(err error) error {
	switch rw.format {
	case FormatCSV:
		if rw.csv != nil {
			rw.csv.Flush()
			if err == nil {
				err = rw.csv.Error()
			}
		}
		return err
	case FormatTSV, FormatNDJSON:
	case FormatJSON:
		if err == nil && rw.keys != nil {
			if rw.n > 0 {
				rw.ew.str("\n")
			}
			rw.ew.str("]\n")
		}
	default:
		if rw.table == nil {
			return err
		}
		if ferr := rw.table.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			return err
		}
		switch {
		case rw.left > countCap:
			rw.ew.str(fmt.Sprintf("… more than %s more rows: --format tsv, csv or json prints them all\n", text.GroupDigits(Itoa(countCap))))
		case rw.left > 0:
			rw.ew.str(fmt.Sprintf("… %d more rows (%d in all): --format tsv, csv or json prints them all\n", rw.left, rw.n+rw.left))
		default:
			rw.ew.str(fmt.Sprintf("(%d rows)\n", rw.n))
		}
	}
	if err != nil {
		return err
	}
	return rw.ew.err
}

func (rw *RowWriter) csvRecord(rec []string) error {
	if rw.tty {
		for i := range rec {
			rec[i] = Safe(rec[i])
		}
	}
	if err := rw.csv.Write(rec); err != nil {
		return err
	}
	rw.csv.Flush() // out of its own buffer, so a row is out when the caller flushes
	return rw.csv.Error()
}

func (rw *RowWriter) tsvLine(rec []string) {
	for i, c := range rec {
		if i > 0 {
			rw.ew.str("\t")
		}
		c = tsvEscape(c)
		if rw.tty {
			c = Safe(c)
		}
		rw.ew.str(c)
	}
	rw.ew.str("\n")
}

// jsonRow writes an object keyed by column name, in column order: numbers
// as numbers, NULL as null, text as strings, blobs as base64 strings.
func (rw *RowWriter) jsonRow(vals []any) {
	var b bytes.Buffer
	if rw.format == FormatJSON {
		if rw.n > 1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(rw.keys[i])
		b.WriteString(jsonValue(v))
	}
	b.WriteByte('}')
	if rw.format == FormatNDJSON {
		b.WriteByte('\n')
	}
	rw.ew.bytes(b.Bytes())
}

func jsonValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "null"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []byte:
		if utf8.Valid(x) {
			return string(js.JSONString(string(x)))
		}
		return string(js.JSONString(base64.StdEncoding.EncodeToString(x)))
	}
	return string(js.JSONString(fmt.Sprint(v)))
}

// cell is a value as text: NULL is empty.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// ViewReference is the views' reference as Markdown: `pidex schema` and
// docs/sql.md.
func ViewReference(views []pidex.View) string {
	var b strings.Builder
	for _, v := range views {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n| column | meaning |\n|---|---|\n", v.Name, v.Doc)
		for _, c := range v.Columns {
			fmt.Fprintf(&b, "| `%s` | %s |\n", c.Name, strings.ReplaceAll(c.Doc, "|", `\|`))
		}
		b.WriteString("\n")
	}
	return b.String()
}
