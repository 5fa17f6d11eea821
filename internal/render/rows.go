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

// Rows writes a SQL result. maxRows > 0 caps a table (a screenful on a
// terminal) and says how many rows were left out.
func Rows(w io.Writer, r *pidex.Rows, format string, maxRows int) error {
	switch format {
	case FormatCSV:
		cw := csv.NewWriter(w)
		_ = cw.Write(r.Columns)
		for _, row := range r.Rows {
			rec := make([]string, len(row))
			for i, v := range row {
				rec[i] = cell(v)
			}
			_ = cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	case FormatTSV:
		return rowsTSV(w, r)
	case FormatJSON, FormatNDJSON:
		return rowsJSON(w, r, format == FormatNDJSON)
	}
	return rowsTable(w, r, maxRows, 0)
}

// RowsTable writes a SQL result as a terminal table of at most maxRows
// rows (0: all), fitted to width cells (0: as wide as it takes).
func RowsTable(w io.Writer, r *pidex.Rows, maxRows, width int) error {
	return rowsTable(w, r, maxRows, width)
}

func rowsTable(w io.Writer, r *pidex.Rows, maxRows, width int) error {
	t := NewTable(w, true, r.Columns...).Fit(width)
	n := len(r.Rows)
	if maxRows > 0 && n > maxRows {
		n = maxRows
	}
	for _, row := range r.Rows[:n] {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = text.CutWidth(Safe(strings.Join(strings.Fields(cell(v)), " ")), 60)
		}
		t.Row(cells...)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if left := len(r.Rows) - n; left > 0 {
		_, err := fmt.Fprintf(w, "… %d more rows (%d in all): --format tsv, csv or json prints them all\n", left, len(r.Rows))
		return err
	}
	_, err := fmt.Fprintf(w, "(%d rows)\n", len(r.Rows))
	return err
}

func rowsTSV(w io.Writer, r *pidex.Rows) error {
	ew := &errWriter{w: w}
	for i, c := range r.Columns {
		if i > 0 {
			ew.str("\t")
		}
		ew.str(tsvEscape.Replace(c))
	}
	ew.str("\n")
	for _, row := range r.Rows {
		for i, v := range row {
			if i > 0 {
				ew.str("\t")
			}
			ew.str(tsvEscape.Replace(cell(v)))
		}
		ew.str("\n")
	}
	return ew.err
}

// rowsJSON writes objects keyed by column name, in column order: numbers
// as numbers, NULL as null, text as strings, blobs as base64 strings.
func rowsJSON(w io.Writer, r *pidex.Rows, ndjson bool) error {
	var b bytes.Buffer
	if !ndjson {
		b.WriteString("[")
	}
	for k, row := range r.Rows {
		if !ndjson && k > 0 {
			b.WriteString(",")
		}
		if !ndjson {
			b.WriteString("\n")
		}
		b.WriteByte('{')
		for i, v := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(js.JSONString(r.Columns[i]))
			b.WriteByte(':')
			b.WriteString(jsonValue(v))
		}
		b.WriteByte('}')
		if ndjson {
			b.WriteByte('\n')
		}
	}
	if !ndjson {
		if len(r.Rows) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("]\n")
	}
	_, err := w.Write(b.Bytes()) // built whole: a failure never leaves half a document
	return err
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
