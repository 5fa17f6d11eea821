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
// "totalTokens", "cost", "calls", "unpricedCalls", "unpricedTokens",
// "unpricedModels"}], "totals":{…}}; with an estimate, each also has
// "estimatedCost" (null when none of the row's unpriced calls has a
// price), "estimatedCalls" and "notEstimated", and the document
// "estimatedWith"; with prices, "repricedCost" (null when no call of the
// row has a price) and "notRepriced" (models the prices file lacks). The
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
		writeSums(b, row.CostSums, r)
		b.WriteByte('}')
	}
	if len(r.Rows) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("],\n  \"totals\": {")
	writeSums(b, r.Totals, r)
	b.WriteString("}")
	if r.EstimatedWith != "" {
		b.WriteString(",\n  ")
		b.member("estimatedWith", r.EstimatedWith)
	}
	b.WriteString("\n}\n")
	if b.err != nil {
		return fmt.Errorf("write cost report: %w", b.err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeSums(b *jsonBuf, s pidex.CostSums, r *pidex.CostReport) {
	fields := []struct {
		k string
		v any
	}{{"input", s.Input}, {"output", s.Output}, {"cacheRead", s.CacheRead}, {"cacheWrite", s.CacheWrite},
		{"totalTokens", s.TotalTokens}, {"cost", s.Cost}, {"calls", s.Calls},
		{"unpricedCalls", s.UnpricedCalls}, {"unpricedTokens", s.UnpricedTokens}, {"unpricedModels", names(s.UnpricedModels)}}
	if r.EstimatedWith != "" {
		var ec any = s.Estimated
		if noEstimate(s) {
			ec = nil
		}
		fields = append(fields, []struct {
			k string
			v any
		}{{"estimatedCost", ec}, {"estimatedCalls", s.EstimatedCalls}, {"notEstimated", names(s.NoEstimate)}}...)
	}
	if r.Repriced {
		var rc any = s.Repriced
		if noPrice(s) {
			rc = nil
		}
		fields = append(fields, []struct {
			k string
			v any
		}{{"repricedCost", rc}, {"notRepriced", names(s.NotRepriced)}}...)
	}
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.member(f.k, f.v)
	}
}

// names is a list of names for JSON: [] for none, never null.
func names(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
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
// fields' names, shorter on a terminal (where a table must fit, and the
// unpriced calls are a note under it: UnpricedNote).
func costHeader(r *pidex.CostReport, tty bool) []string {
	h := append([]string{}, r.By...)
	if tty {
		h = append(h, "calls", "input", "output", "cache rd", "cache wr", "total", "cost")
		if r.EstimatedWith != "" {
			h = append(h, "estimated")
		}
	} else {
		h = append(h, "calls", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost",
			"unpricedCalls", "unpricedTokens", "unpricedModels")
		if r.EstimatedWith != "" {
			h = append(h, "estimatedCost", "estimatedCalls", "notEstimated")
		}
	}
	if r.Repriced {
		h = append(h, "repriced", "notRepriced")
	}
	return h
}

// costCells formats one row; num formats token counts and calls (exact
// when piped, rounded for reading on a terminal), tty rounds cost to cents
// as text.Money writes it and marks the cost of a row with unpriced calls
// with the note's asterisk.
func costCells(keys []string, s pidex.CostSums, r *pidex.CostReport, tty bool, num func(float64) string) []string {
	money := func(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }
	if tty {
		money = text.Money
	}
	cost := money(s.Cost)
	if tty && s.UnpricedCalls > 0 {
		cost += "*"
	}
	c := append([]string{}, keys...)
	c = append(c, num(float64(s.Calls)), num(s.Input), num(s.Output), num(s.CacheRead), num(s.CacheWrite),
		num(s.TotalTokens), cost)
	if !tty {
		c = append(c, num(float64(s.UnpricedCalls)), num(s.UnpricedTokens), strings.Join(s.UnpricedModels, " "))
	}
	if r.EstimatedWith != "" {
		e := money(s.Estimated)
		switch {
		case noEstimate(s):
			e = "-"
		case tty && s.UnpricedCalls == 0:
			e = "" // nothing to estimate
		}
		c = append(c, e)
		if !tty {
			c = append(c, num(float64(s.EstimatedCalls)), strings.Join(s.NoEstimate, " "))
		}
	}
	if r.Repriced {
		rp := money(s.Repriced)
		if noPrice(s) {
			rp = "-"
		}
		c = append(c, rp, strings.Join(s.NotRepriced, " "))
	}
	return c
}

// noPrice: none of the row's calls has a price (never shown as $0).
func noPrice(s pidex.CostSums) bool { return s.PricedCalls == 0 && len(s.NotRepriced) > 0 }

// noEstimate: the row has unpriced calls and none has a price to
// estimate it with (never shown as $0).
func noEstimate(s pidex.CostSums) bool { return s.UnpricedCalls > 0 && s.EstimatedCalls == 0 }

// UnpricedNote says what a report's totals hold of unpriced calls, for
// the line under its table ("" when none): how many, their tokens, their
// models, that the cost leaves them out, and the estimate, if any; hint
// says how to ask for one on this face.
func UnpricedNote(r *pidex.CostReport, hint string) string {
	s := r.Totals
	if s.UnpricedCalls == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "* unpriced: %s %s, %s tokens, of %s: pi recorded them at $0 without a price for the model, "+
		"so the cost leaves them out", text.Count(s.UnpricedCalls), text.Plural(int(min(s.UnpricedCalls, 2)), "call", "calls"),
		text.Round(s.UnpricedTokens), strings.Join(s.UnpricedModels, ", "))
	switch {
	case r.EstimatedWith == "":
		if hint != "" {
			fmt.Fprintf(&b, " (%s)", hint)
		}
	case s.EstimatedCalls == 0:
		fmt.Fprintf(&b, "; %s has no price for them to estimate with", r.EstimatedWith)
	default:
		fmt.Fprintf(&b, "; estimated %s for %s of them with %s, apart from the cost", text.Money(s.Estimated),
			text.Count(s.EstimatedCalls), r.EstimatedWith)
		if len(s.NoEstimate) > 0 {
			fmt.Fprintf(&b, " (no price for %s)", strings.Join(s.NoEstimate, ", "))
		}
	}
	b.WriteString(".")
	return b.String()
}

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
		t.Row(costCells(row.Keys, row.CostSums, r, tty, num)...)
	}
	t.Row(costCells(totalKeys(r), r.Totals, r, tty, num)...)
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
		write(costCells(row.Keys, row.CostSums, r, false, Num))
	}
	write(costCells(totalKeys(r), r.Totals, r, false, Num))
	cw.Flush()
	return cw.Error()
}

// CostNote writes a report's UnpricedNote (nothing when it has none),
// its words wrapped to width cells (0: one line).
func CostNote(w io.Writer, r *pidex.CostReport, hint string, width int) error {
	note := UnpricedNote(r, hint)
	if note == "" {
		return nil
	}
	_, err := io.WriteString(w, wrapWords(note, width)+"\n")
	return err
}

// wrapWords breaks s between words into lines of at most width cells (a
// longer word keeps a line of its own; width 0: no breaks).
func wrapWords(s string, width int) string {
	if width <= 0 {
		return s
	}
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		ww := text.Width(word)
		switch {
		case i == 0:
		case n+1+ww > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += ww
	}
	return b.String()
}
