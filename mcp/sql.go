package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

type sqlArgs struct {
	Statement     string            `json:"statement" jsonschema:"one read-only SQL statement (SELECT, WITH, VALUES, EXPLAIN or a reading PRAGMA) on the views listed in the description; SQLite dialect"`
	Params        map[string]string `json:"params,omitempty" jsonschema:"values for :name parameters in the statement (numbers are bound as numbers)"`
	MaxRows       int               `json:"max_rows,omitempty" jsonschema:"rows read at most" cursor:"page"`
	TimeoutMs     int               `json:"timeout_ms,omitempty" jsonschema:"stop the statement after this many milliseconds" cursor:"page"`
	MaxValueChars int               `json:"max_value_chars,omitempty" jsonschema:"characters kept of each value before it is cut" cursor:"page"`
	MaxChars      int               `json:"max_chars,omitempty" jsonschema:"character budget of the whole result" cursor:"page"`
	Cursor        string            `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result: the statement runs again and the rows after that page are returned" cursor:"-"`
}

type sqlResult struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows" jsonschema:"one array per row, values in column order: numbers, strings, or null"`
	More    bool     `json:"more" jsonschema:"the statement had rows past this page"`
	page
}

func sqlDesc() string {
	var b strings.Builder
	b.WriteString(`Answer what the other tools do not with one read-only SQL statement (SQLite) on pidex's catalog of pi sessions. Nothing that writes, attaches or loads gets through. Views (full reference: resource pidex://sql-views):`)
	for _, v := range pidex.Views {
		cols := make([]string, len(v.Columns))
		for i, c := range v.Columns {
			cols[i] = c.Name
		}
		fmt.Fprintf(&b, "\n- %s(%s)", v.Name, strings.Join(cols, ", "))
	}
	b.WriteString("\nTimes are Unix milliseconds (*_ms; datetime(ts_ms/1000, 'unixepoch')). entry_json(path, offset) reads an entry back from its file. Rows are bounded (max_rows, max_chars, timeout_ms); next_cursor gets more.")
	return b.String()
}

func (s *Server) addSQL() {
	addTool(s, toolSpec[sqlArgs, sqlResult]{
		name: "query_sql", title: "SQL on the session catalog", desc: sqlDesc(), quotes: true,
		rename: map[string]string{"maxRows": "max_rows", "timeout": "timeout_ms", "maxItemChars": "max_value_chars"},
		patch: func(sc *jsonschema.Schema) {
			bounds(sc, "max_rows", 1, pidex.MaxSQLRows, pidex.DefaultSQLRows)
			bounds(sc, "timeout_ms", 1, int(pidex.MaxSQLTimeout/time.Millisecond), int(pidex.DefaultSQLTimeout/time.Millisecond))
			bounds(sc, "max_value_chars", pidex.MinItemBudget, pidex.MaxBudget, pidex.DefaultItemBudget/4)
			bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
		},
		run: s.sql,
	})
}

// defaultValueChars: a SQL value is cut shorter than a message, since a
// row holds many.
const defaultValueChars = pidex.DefaultItemBudget / 4

func (s *Server) sql(ctx context.Context, in *sqlArgs) (reply[sqlResult], error) {
	var r reply[sqlResult]
	offset, err := resumeAt("query_sql", in.Cursor, in)
	if err != nil {
		return r, err
	}
	maxRows, err := pidex.Bounded("maxRows", in.MaxRows, pidex.DefaultSQLRows, 1, pidex.MaxSQLRows)
	if err != nil {
		return r, err
	}
	ms, err := pidex.Bounded("timeout", in.TimeoutMs, int(pidex.DefaultSQLTimeout/time.Millisecond), 1, int(pidex.MaxSQLTimeout/time.Millisecond))
	if err != nil {
		return r, err
	}
	valueChars := in.MaxValueChars
	if valueChars == 0 {
		valueChars = defaultValueChars
	}
	budget, err := pidex.BudgetOptions{Chars: in.MaxChars, ItemChars: valueChars}.Filter(s.cat.Vocabulary())
	if err != nil {
		return r, err
	}
	rows, err := s.cat.SQL(ctx, pidex.SQLOptions{Statement: in.Statement, Params: in.Params,
		Timeout: time.Duration(ms) * time.Millisecond, MaxRows: offset + maxRows})
	if err != nil {
		return r, err
	}
	out := sqlResult{Columns: rows.Columns, Rows: [][]any{}, More: rows.More}
	out.Offset = min(offset, len(rows.Rows))
	page := &pidex.Rows{Columns: rows.Columns, Rows: rows.Rows[out.Offset:]}
	cuts := make([]int, len(page.Rows)) // values cut, by row
	for i, row := range page.Rows {
		vals := make([]any, len(row))
		for k, v := range row {
			var c bool
			vals[k], c = value(v, budget.ItemChars)
			if c {
				cuts[i]++
			}
		}
		page.Rows[i] = vals
		out.Rows = append(out.Rows, vals)
	}
	lines := tsvLines(page)
	for i, l := range lines { // the header and every row, quoted: values are session content
		lines[i] = quoteLines("", strings.TrimSuffix(l, "\n"))
	}
	keep := view.Take(len(out.Rows), budget.Chars-reserve-chars(lines[0]), func(i int) int { return size(lines[i+1], out.Rows[i]) })
	if keep < len(out.Rows) {
		out.Rows, page.Rows, lines = out.Rows[:keep], page.Rows[:keep], lines[:keep+1]
		out.More = true
		out.Truncated = budgetNote(keep, budget.Chars) + " Fewer columns, a shorter max_value_chars or a narrower WHERE fit more."
	}
	out.Returned = keep
	cut := 0 // of the rows returned: the ones past the budget are not shown
	for _, n := range cuts[:keep] {
		cut += n
	}
	if out.More {
		out.NextCursor = encodeCursor("query_sql", cursorKey(*in), out.Offset+keep, "")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s (from row %d)", keep, text.Plural(keep, "row", "rows"), out.Offset+1)
	if out.More {
		b.WriteString("; the statement has more")
	}
	b.WriteString(". Tab-separated after │; tab, newline and backslash in values are written \\t, \\n, \\\\; NULL is empty.\n\n")
	b.WriteString(strings.Join(lines, ""))
	if cut > 0 {
		fmt.Fprintf(&b, "\n%d %s cut at %s characters (max_value_chars).\n", cut, text.Plural(cut, "value was", "values were"), count(budget.ItemChars))
	}
	if out.More && out.Truncated == "" {
		fmt.Fprintf(&b, "\nmax_rows (%d) reached.\n", maxRows)
	}
	b.WriteString(pageNote(out.page, "rows"))
	r.data, r.text = out, strings.TrimRight(b.String(), "\n")
	return r, nil
}

// tsvLines are the header and each row as the CLI's tsv writes them.
func tsvLines(rows *pidex.Rows) []string {
	var buf bytes.Buffer
	_ = render.Rows(&buf, rows, render.FormatTSV, 0)
	return strings.SplitAfter(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

// value is a SQL value as JSON can carry it: text cut to n characters,
// blobs as text when UTF-8 else base64, NaN and infinities as null.
func value(v any, n int) (any, bool) {
	switch x := v.(type) {
	case []byte:
		if utf8.Valid(x) {
			return cutValue(string(x), n)
		}
		return cutValue(base64.StdEncoding.EncodeToString(x), n)
	case string:
		return cutValue(x, n)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
	}
	return v, false
}

func cutValue(s string, n int) (any, bool) { return view.CutChars(s, n) }
