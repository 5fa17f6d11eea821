package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// CostJSON writes a cost report as one JSON document:
// {"rows":[{<key>: value…, "input", "output", "cacheRead", "cacheWrite",
// "totalTokens", "cost", "calls"}], "totals":{…}}; with prices, each also
// has "repricedCost" (null when no call of the row has a price) and
// "unpriced" (models the prices file lacks). The
// document is built whole before it is written, and a value JSON cannot
// carry (a sum that did not saturate) fails it: never "cost": , on stdout.
func CostJSON(w io.Writer, r *pidex.CostReport) error {
	b := &jsonBuf{}
	b.WriteString("{\n  \"rows\": [")
	for i, row := range r.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {")
		for j, k := range r.By {
			b.member(k, row.Keys[j])
			b.WriteString(", ")
		}
		writeSums(b, row.CostSums, r.Repriced)
		b.WriteByte('}')
	}
	if len(r.Rows) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("],\n  \"totals\": {")
	writeSums(b, r.Totals, r.Repriced)
	b.WriteString("}\n}\n")
	if b.err != nil {
		return fmt.Errorf("write cost report: %w", b.err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeSums(b *jsonBuf, s pidex.CostSums, repriced bool) {
	for i, f := range []struct {
		k string
		v any
	}{{"input", s.Input}, {"output", s.Output}, {"cacheRead", s.CacheRead}, {"cacheWrite", s.CacheWrite},
		{"totalTokens", s.TotalTokens}, {"cost", s.Cost}, {"calls", s.Calls}} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.member(f.k, f.v)
	}
	if repriced {
		b.WriteString(", ")
		var rc any = s.Repriced
		if noPrice(s) {
			rc = nil
		}
		b.member("repricedCost", rc)
		b.WriteString(", ")
		un := s.Unpriced
		if un == nil {
			un = []string{}
		}
		b.member("unpriced", un)
	}
}

// jsonBuf is a document being built, with the first value that could not
// be encoded.
type jsonBuf struct {
	bytes.Buffer
	err error
}

func (b *jsonBuf) member(k string, v any) {
	kb, err := json.Marshal(k)
	if err == nil {
		var vb []byte
		if vb, err = json.Marshal(v); err == nil {
			b.Write(kb)
			b.WriteString(": ")
			b.Write(vb)
			return
		}
	}
	if b.err == nil {
		b.err = fmt.Errorf("%s: %w", k, err)
	}
}

// costHeader names the columns of the table and CSV forms: the JSON
// fields' names, shorter on a terminal (where a table must fit).
func costHeader(r *pidex.CostReport, tty bool) []string {
	h := append([]string{}, r.By...)
	if tty {
		h = append(h, "calls", "input", "output", "cache rd", "cache wr", "total", "cost")
	} else {
		h = append(h, "calls", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost")
	}
	if r.Repriced {
		h = append(h, "repriced", "unpriced")
	}
	return h
}

// costCells formats one row; num formats token counts and calls (exact
// when piped, rounded for reading on a terminal), tty rounds cost to cents
// as text.Money writes it.
func costCells(keys []string, s pidex.CostSums, repriced, tty bool, num func(float64) string) []string {
	money := func(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }
	if tty {
		money = text.Money
	}
	c := append([]string{}, keys...)
	c = append(c, num(float64(s.Calls)), num(s.Input), num(s.Output), num(s.CacheRead), num(s.CacheWrite),
		num(s.TotalTokens), money(s.Cost))
	if repriced {
		r := money(s.Repriced)
		if noPrice(s) {
			r = "-"
		}
		c = append(c, r, strings.Join(s.Unpriced, " "))
	}
	return c
}

// noPrice: none of the row's calls has a price (never shown as $0).
func noPrice(s pidex.CostSums) bool { return s.PricedCalls == 0 && len(s.Unpriced) > 0 }

// CostTable writes a cost report as a table with a totals row: aligned,
// token counts rounded with their digits grouped, numbers right-aligned
// and cost in dollars on a terminal; tab-separated with full values when
// piped. On a terminal of width cells (0: no limit) a table that would not
// fit writes its counts short (1.7M) and cuts its keys before its rows
// would wrap.
func CostTable(w io.Writer, r *pidex.CostReport, tty bool, width int) error {
	if !tty {
		return costTable(w, r, false, Num, 0)
	}
	var probe bytes.Buffer // a table only knows its width once it has its rows
	t := costRows(&probe, r, true, text.Round)
	if width <= 0 || t.NaturalWidth() <= width {
		return costTable(w, r, true, text.Round, width)
	}
	return costTable(w, r, true, text.Short, width)
}

// costTable writes the table; to fit a terminal its keys give way (the
// periods last: they are short, and they are the report's axis), never
// its figures.
func costTable(w io.Writer, r *pidex.CostReport, tty bool, num func(float64) string, width int) error {
	var flex, periods, paths []int
	for i, k := range r.By {
		switch {
		case pidex.IsPeriod(k):
			periods = append(periods, i)
		case k == "project": // a working directory: its last folders tell projects apart
			paths = append(paths, i)
			flex = append(flex, i)
		default:
			flex = append(flex, i)
		}
	}
	return costRows(w, r, tty, num).Fit(width, flex...).CutLast(periods...).CutStart(paths...).Flush()
}

func costRows(w io.Writer, r *pidex.CostReport, tty bool, num func(float64) string) *Table {
	t := NewTable(w, tty, costHeader(r, tty)...)
	for _, row := range r.Rows {
		t.Row(costCells(row.Keys, row.CostSums, r.Repriced, tty, num)...)
	}
	t.Row(costCells(totalKeys(r), r.Totals, r.Repriced, tty, num)...)
	return t
}

func totalKeys(r *pidex.CostReport) []string {
	keys := make([]string, len(r.By))
	if len(keys) > 0 {
		keys[0] = "total"
	}
	return keys
}

// CostCSV writes a cost report as CSV (RFC 4180), totals last. On a
// terminal (tty) control characters in the keys (a project's cwd, a
// model's name: session text) are shown escaped, as tables show them.
func CostCSV(w io.Writer, r *pidex.CostReport, tty bool) error {
	cw := csv.NewWriter(w)
	write := func(rec []string) {
		if tty {
			for i := range rec {
				rec[i] = Safe(rec[i])
			}
		}
		_ = cw.Write(rec)
	}
	write(costHeader(r, false))
	for _, row := range r.Rows {
		write(costCells(row.Keys, row.CostSums, r.Repriced, false, Num))
	}
	write(costCells(totalKeys(r), r.Totals, r.Repriced, false, Num))
	cw.Flush()
	return cw.Error()
}
